import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult, type IModule } from 'dependency-cruiser';

// The modules that load when `entry` runs, each with what it imports: only the JavaScript that
// runs counts (an `import type` is erased), import() included (marked `dynamic`).

const root = path.resolve(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs'));

export async function runtimeModules(entry: string): Promise<IModule[]> {
  const { output } = await cruise([entry], {
    ...config.options,
    baseDir: root,
    tsPreCompilationDeps: false,
    tsConfig: { fileName: path.join(root, 'tsconfig.json') },
  });
  return (output as ICruiseResult).modules;
}
