/** Where things are in a checkout, for tests and scripts alike: one definition, wherever the caller sits. */
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..');
/** The bundled example traces and their expected reports (`expected/`). */
export const examplesDir = join(repoRoot, 'examples');
/** The tests' fixtures: `formats/` (one folder per format), `ui/` (traces the UI tests open), `hostile/`. */
export const testFixturesDir = join(repoRoot, 'test', 'fixtures');
