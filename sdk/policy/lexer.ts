/**
 * @module policy/lexer
 * Splits a policy expression into tokens with their positions. Strings use single quotes only
 * (the language has no double-quoted strings); integers are arbitrary precision (the language's
 * int is i128 and uint u256), so they are kept as bigint.
 */
import { PolicySyntaxError, type Position } from "./errors";

export type TokenKind = "string" | "int" | "ident" | "punct" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** The identifier or punctuation text, the decoded string, or the digits of an int. */
  readonly text: string;
  readonly position: Position;
}

/** Longest first, so `..` wins over `.` and `<=` over `<`. */
const PUNCTUATION = ["&&", "||", "==", "!=", "<=", ">=", "..", "<", ">", "!", "(", ")", "[", "]", ",", "."];

/** Describes a token for "expected X, found Y" messages. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case "eof":
      return "the end of the expression";
    case "string":
      return `string '${token.text}'`;
    case "int":
      return `number ${token.text}`;
    default:
      return `'${token.text}'`;
  }
}

/** @throws PolicySyntaxError at the first character that starts no token */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let offset = 0;
  let line = 1;
  let column = 1;
  const here = (): Position => ({ offset, line, column });
  const advance = (count: number) => {
    for (let i = 0; i < count; i++) {
      if (source[offset] === "\n") {
        line++;
        column = 1;
      } else {
        column++;
      }
      offset++;
    }
  };

  while (offset < source.length) {
    const ch = source[offset] as string;
    if (/\s/.test(ch)) {
      advance(1);
      continue;
    }
    const start = here();
    if (ch === "'") {
      let value = "";
      advance(1);
      for (;;) {
        if (offset >= source.length) throw new PolicySyntaxError("syntax", "unterminated string: expected a closing '", start);
        const c = source[offset] as string;
        if (c === "\\" && offset + 1 < source.length) {
          value += source[offset + 1];
          advance(2);
          continue;
        }
        advance(1);
        if (c === "'") break;
        value += c;
      }
      tokens.push({ kind: "string", text: value, position: start });
      continue;
    }
    if (ch === '"') {
      throw new PolicySyntaxError("syntax", "strings use single quotes ('…'), not double quotes", start);
    }
    if (/[0-9]/.test(ch)) {
      const digits = /^[0-9]+/.exec(source.slice(offset))![0];
      if (/^[A-Za-z_]/.test(source.slice(offset + digits.length))) {
        throw new PolicySyntaxError("syntax", `invalid number ${digits}${source[offset + digits.length]}…`, start);
      }
      advance(digits.length);
      tokens.push({ kind: "int", text: digits, position: start });
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(offset))![0];
      advance(word.length);
      tokens.push({ kind: "ident", text: word, position: start });
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, offset));
    if (punct === undefined) {
      const hint = ch === "&" || ch === "|" ? ` (use '${ch}${ch}')` : ch === "=" ? " (use '==')" : "";
      throw new PolicySyntaxError("syntax", `unexpected character '${ch}'${hint}`, start);
    }
    advance(punct.length);
    tokens.push({ kind: "punct", text: punct, position: start });
  }
  tokens.push({ kind: "eof", text: "", position: here() });
  return tokens;
}
