/** Builds the Mini App's page into `outdir` (webapp/dist/ by default). */
export function buildWebapp(outdir?: string): Promise<void>;
