/**
 * What makes two findings "the same finding" for grouping (134 × "call Bash has invalid arguments:
 * arguments redacted"): the same kind and severity, and the same message once what names one
 * occurrence is masked — call ids and other ids, numbers, and where it happened (step, line). The
 * occurrences keep their own messages; the template is only the group's title and key.
 */
import { fnv1a32 } from './fnv1a';

/** An id: a token of letters, digits, `_` and `-` that mixes letters and digits, 6 characters or more (toolu_01Ab…, call_9x…, a UUID). */
const idPattern = /(?<![\p{L}\p{N}_-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{6,}(?![\p{L}\p{N}_-])/gu;
/** A number standing alone (a count, a step, a line); digits inside a word (an error code such as E404) stay. */
const numberPattern = /(?<![\p{L}\p{N}_])\d+(?:[.,:]\d+)*(?![\p{L}\p{N}_])/gu;
/** "at line …", "at step …": where one occurrence happened. */
const locationPhrase = /\s+at (?:line|step) …/g;
/** A parenthesis holding nothing but masked ids and locations: "(…, step …)", "(line …)". */
const locationParenthesis = /\s*\((?:\s*(?:…|step|line|call_id|,))+\s*\)/g;

export function findingTemplate(message: string): string {
  return (
    message
      .replace(idPattern, '…')
      // The same mark as an id: a hash or id made only of digits must not split a group.
      .replace(numberPattern, '…')
      .replace(locationPhrase, '')
      .replace(locationParenthesis, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A short, stable key for a template (FNV-1a, 32 bits, with its length), to ask for a group's occurrences without sending the template back. */
export function findingTemplateKey(template: string): string {
  return `${fnv1a32(template).toString(16).padStart(8, '0')}-${template.length.toString(16)}`;
}
