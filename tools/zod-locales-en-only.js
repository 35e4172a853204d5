// Stands in for zod's `locales` namespace in the bundle (tools/build.mjs). The bot never
// switches zod's language (its messages reach no user: the bot's own texts come from
// locales/), and the 47 other languages are 290 KB of source kept in the heap.
export { default as en } from "zod/v4/locales/en.js";
