// Types of the generated module beside this file (see scripts/generate-trace-schema.ts).
import type { ValidateFunction } from 'ajv/dist/2020.js';

export declare const run_start: ValidateFunction;
export declare const model_request: ValidateFunction;
export declare const model_response: ValidateFunction;
export declare const stream_fragment: ValidateFunction;
export declare const tool_call_start: ValidateFunction;
export declare const tool_result: ValidateFunction;
export declare const tool_call_not_executed: ValidateFunction;
export declare const run_end: ValidateFunction;
