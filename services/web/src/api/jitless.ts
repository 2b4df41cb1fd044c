import { z } from 'zod';

// Imported before anything that builds a schema: zod compiles fast parsers with `new Function`,
// which the page's Content-Security-Policy (no 'unsafe-eval') refuses and reports. Jitless parsing
// is the same check without the compiler.
z.config({ jitless: true });
