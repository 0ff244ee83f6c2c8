// Which Node.js the CLI can run on. A plain JavaScript module that bin/loopscope.js checks before
// it loads anything else: better-sqlite3's native module crashes older Node.js with a segmentation
// fault and no message, so the version is checked first and the user told what to do.

/** The oldest Node.js major version the CLI runs on (package.json's `engines`). */
export const minimumNodeMajor = 22;

/**
 * Why the CLI cannot run on Node.js `version` (as in `process.versions.node`, e.g. "20.20.2") and
 * what to do instead; undefined when it can.
 * @param {string} version
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version) {
  const major = Number.parseInt(version, 10);
  if (major >= minimumNodeMajor) return undefined;
  return (
    `loopscope needs Node.js ${minimumNodeMajor} or later; this is Node.js ${version}.\n` +
    `  Run it from the project folder with \`npm run loopscope -- …\` (after \`npm ci\`): that uses the\n` +
    `  Node.js ${minimumNodeMajor} the project installs as a dev dependency.\n` +
    `  Or install Node.js ${minimumNodeMajor} or later (https://nodejs.org) and run loopscope again.\n`
  );
}
