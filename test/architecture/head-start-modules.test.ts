import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import { describe, expect, it } from 'vitest';
import { runtimeModules } from './runtime-modules.js';

// A container redeploy's head start (services/cli/deploy-steps/head-start.ts) lays the image and
// has the engine pull it and start the copy before the rest of the tool loads: every module it
// loads is on the way to the copy's start. The contract's main entry (its route table and the
// platform's client, 0.05-0.08 s of loading) is not among them: the client loads with the rest of
// the tool, while the engine works. Only what runs counts (type-only imports are erased), with
// the modules it loads on the way (import()).

async function modulesLoadedFrom(entry: string): Promise<string[]> {
  return (await runtimeModules(entry)).map((module) => module.source);
}

describe("the head start's modules", () => {
  it('leave out the route table, and take the lines and the errors from their own entries', async () => {
    const loaded = await modulesLoadedFrom('services/cli/deploy-steps/head-start.ts');
    // The cruise followed the head start's own imports (a cruise that found nothing proves nothing).
    expect(loaded).toEqual(expect.arrayContaining(['services/cli/deploy-steps/lay-early.ts', 'services/cli/lines.ts']));
    expect(loaded).toEqual(expect.arrayContaining(['services/contract/api-errors.ts', 'services/contract/text.ts']));
    expect(loaded).not.toContain('services/contract/index.ts');
    expect(loaded).not.toContain('services/contract/routes/route-table.ts');
  }, 60_000);

  // bin/pitch.mjs loads them through Node's own type stripping (bin/type-stripping.mjs), which
  // refuses what only TypeScript's compiler turns into JavaScript (a parameter property, an enum):
  // one such module and every `pitch` command would fail to start.
  it("are all ones Node's own type stripping can run", async () => {
    const loaded = (await modulesLoadedFrom('services/cli/deploy-steps/head-start.ts')).filter((source) => source.endsWith('.ts'));
    expect(loaded.length).toBeGreaterThan(20);
    const refused: string[] = [];
    for (const source of loaded) {
      try {
        stripTypeScriptTypes(await readFile(source, 'utf8'));
      } catch (err) {
        refused.push(`${source}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    expect(refused).toEqual([]);
  }, 60_000);

  it('the deploy itself does load the route table (the probe can see it)', async () => {
    expect(await modulesLoadedFrom('services/cli/deploy-steps/deploy-flow.ts')).toContain('services/contract/index.ts');
  }, 60_000);
});
