// Types of bin/nodeVersion.js, for the tests that import it (bin/ is plain JavaScript, run as is).
export declare const minimumNodeMajor: number;
export declare function nodeVersionProblem(version: string): string | undefined;
