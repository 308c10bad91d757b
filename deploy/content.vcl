vcl 4.1;

# Varnish in front of the public content API (/content/v1), as `npm run cluster` and
# docs/deploy.md run it. The app answers with Cache-Control: public, s-maxage and a
# Surrogate-Key header (newsroom-…, list-…, article-…); its outbox sends
#   PURGE / with Surrogate-Key: <keys, space-separated>
# to CONTENT_PURGE_URL (this Varnish), which bans every object carrying one of those keys.
# {{BACKEND_HOST}} and {{BACKEND_PORT}} (HAProxy in front of the app instances) are filled in
# by scripts/cluster.ts.

import std;

backend app {
  .host = "{{BACKEND_HOST}}";
  .port = "{{BACKEND_PORT}}";
  .connect_timeout = 2s;
  .first_byte_timeout = 30s;
}

acl purgers {
  "127.0.0.1";
  "::1";
}

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) {
      return (synth(403, "Purges come from the app's outbox only."));
    }
    if (!req.http.Surrogate-Key) {
      return (synth(400, "Name the keys to purge in a Surrogate-Key header."));
    }
    # Keys are [a-z0-9_-]: safe inside the ban's regular expression.
    ban("obj.http.Surrogate-Key ~ (^|\s)(" + regsuball(req.http.Surrogate-Key, "\s+", "|") + ")(\s|$)");
    return (synth(200, "Purged"));
  }
  # Only the public content API is cached; anything else passes straight through.
  if (req.url !~ "^/content/v1/" || (req.method != "GET" && req.method != "HEAD")) {
    return (pass);
  }
  # Media renditions (/content/v1/media/…) vary by Accept: reduce it to the three formats the
  # app chooses between, so browsers' many Accept spellings share three cached copies.
  if (req.url ~ "^/content/v1/media/") {
    if (req.http.Accept ~ "image/avif") {
      set req.http.Accept = "image/avif";
    } else if (req.http.Accept ~ "image/webp") {
      set req.http.Accept = "image/webp";
    } else {
      set req.http.Accept = "image/jpeg";
    }
  }
  # The answer depends on the URL (the key is a query parameter) and X-Content-Key only.
  unset req.http.Cookie;
  unset req.http.Authorization;
  return (hash);
}

sub vcl_backend_response {
  # The app's s-maxage is the TTL; a purge ends it sooner. Never cache what the app marks private.
  if (beresp.http.Cache-Control ~ "(private|no-store)") {
    set beresp.uncacheable = true;
    set beresp.ttl = 0s;
  }
  set beresp.grace = 30s;
}

sub vcl_deliver {
  # Cache tags name newsrooms by id: they are for this cache's purges, not for the public.
  unset resp.http.Surrogate-Key;
  unset resp.http.Cache-Tag;
  # How the answer was served, for the cluster tests and the bench (HIT or MISS).
  if (obj.hits > 0) {
    set resp.http.X-Cache = "HIT";
  } else {
    set resp.http.X-Cache = "MISS";
  }
}
