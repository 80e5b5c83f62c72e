/**
 * @module policy/errors
 * Positions and diagnostics of the policy language. Every error or warning points at a line and
 * column (1-based) of the expression text, so a caller can name the property and the place.
 */

/** A place in an expression's text. */
export interface Position {
  /** 0-based character offset. */
  readonly offset: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

/** One finding about an expression: an error refuses it, a warning (lint) does not. */
export interface Diagnostic {
  readonly severity: "error" | "warning";
  /** Short stable name of the rule (`syntax`, `type`, `mixed-and-or`, …). */
  readonly rule: string;
  readonly message: string;
  readonly position: Position;
}

/** "line 1, column 5: message". */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  return `line ${diagnostic.position.line}, column ${diagnostic.position.column}: ${diagnostic.message}`;
}

/** A syntax or type error, thrown by the lexer, parser and checker. */
export class PolicySyntaxError extends Error {
  constructor(
    readonly rule: "syntax" | "type",
    readonly detail: string,
    readonly position: Position,
  ) {
    super(`line ${position.line}, column ${position.column}: ${detail}`);
    this.name = "PolicySyntaxError";
  }

  toDiagnostic(): Diagnostic {
    return { severity: "error", rule: this.rule, message: this.detail, position: this.position };
  }
}

/**
 * A failure while evaluating an expression against one request (a missing field, `wallet` on a
 * request that signs with a private key). It makes the policy's outcome OUTCOME_ERROR.
 */
export class PolicyEvaluationError extends Error {
  constructor(
    readonly detail: string,
    readonly position: Position,
  ) {
    super(`line ${position.line}, column ${position.column}: ${detail}`);
    this.name = "PolicyEvaluationError";
  }
}
