/**
 * The CSP forbids eval, so zod must never try its compiled fast path (each try is a CSP
 * violation). Zod decides when a schema is built, so this module is imported before any other.
 */
import { z } from 'zod';

z.config({ jitless: true });
