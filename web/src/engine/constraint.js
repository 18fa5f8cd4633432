// @ts-check
/**
 * constraint.js — what the generated text must match: a regex or JSON,
 * made into the engine's constraint (a session or a beam search borrows
 * it; the caller frees it with api_constraint_free).
 */

/**
 * What the generated text must match (Session.constrain).
 * @typedef {{regex?: string, grammar?: 'json' | 'json_object'}} Constraint
 */

/**
 * The engine's constraint for {regex}, {grammar: 'json' | 'json_object'}
 * (a handle the caller frees with api_constraint_free).
 * @param {import('./engine.js').Engine} e @param {Constraint} constraint
 */
export function constraintHandle(e, constraint) {
  let handle = 0;
  if (typeof constraint.regex === 'string') {
    handle = e.withString(constraint.regex, 'regex', (ptr) => e.x.api_constraint_regex(ptr));
  } else if (constraint.grammar === 'json') {
    handle = e.x.api_constraint_json();
  } else if (constraint.grammar === 'json_object') {
    handle = e.x.api_constraint_json_object();
  } else {
    throw new TypeError('constraint must be {regex: string} or {grammar: "json" | "json_object"}');
  }
  if (!handle) throw e.error(-1, 'arg');
  return handle;
}
