// Imported first by the commands whose stdout is their output (a token, a password, an export
// archive): the process's log lines go to stderr, so `> file` holds the output alone.
process.env.LOG_STREAM ??= 'stderr'
