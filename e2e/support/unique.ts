/** A tag no other run or journey uses: headlines, file names and searches carry it, so a journey finds only its own rows in a database the suite shares. */
export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
