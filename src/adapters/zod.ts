// zod, as every schema of the product imports it: without its JIT. zod compiles a parser of its
// own (`new Function`) for each object schema the first time it parses; each is used once (the
// configuration) or for a provider's answer, where the network takes far longer, and the
// compiled parsers held about 1 MB of the idle RSS (bench/RESULTS.md). The setting is read when
// a schema is built, so it is made here, before any module that builds one.
import { z } from "zod";

z.config({ jitless: true });

export { z };
