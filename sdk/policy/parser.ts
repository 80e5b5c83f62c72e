/**
 * @module policy/parser
 * Recursive-descent parser of the documented grammar (policy-language reference):
 *
 *   expr    := or ;  or := and ('||' and)* ;  and := unary ('&&' unary)*
 *   unary   := '!' unary | cmp
 *   cmp     := postfix (('=='|'!='|'<'|'>'|'<='|'>='|'in') postfix)?
 *   postfix := primary ( '.' IDENT ( '(' args ')' )? | '[' expr ('..' expr)? ']' )*
 *   primary := STRING | INT | 'true' | 'false' | IDENT | '(' expr ')' | '[' list ']'
 *            | 'Timestamp' '(' STRING ')' | 'CronSpan' '(' STRING ',' STRING ',' STRING ')'
 *
 * `&&` binds tighter than `||` here; the service does not document it, which is why mixing them
 * without parentheses is a lint warning (lints.ts).
 */
import type { ComparisonOperator, Expr } from "./ast";
import { PolicySyntaxError } from "./errors";
import { describeToken, tokenize, type Token } from "./lexer";

const COMPARISONS: ReadonlySet<string> = new Set(["==", "!=", "<", ">", "<=", ">=", "in"]);

/**
 * Parses one expression.
 * @throws PolicySyntaxError with the position and the expected token
 */
export function parseExpression(source: string): Expr {
  const parser = new Parser(tokenize(source));
  if (parser.peek().kind === "eof") {
    throw new PolicySyntaxError("syntax", "expected an expression, found nothing", parser.peek().position);
  }
  const expr = parser.expression();
  parser.expectEnd();
  return expr;
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== "eof") this.index++;
    return token;
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.kind === "punct" && token.text === text;
  }

  private fail(expected: string, token: Token = this.peek()): never {
    throw new PolicySyntaxError("syntax", `expected ${expected}, found ${describeToken(token)}`, token.position);
  }

  private expectPunct(text: string): Token {
    if (!this.isPunct(text)) this.fail(`'${text}'`);
    return this.next();
  }

  expectEnd(): void {
    if (this.peek().kind !== "eof") this.fail("'&&', '||' or the end of the expression");
  }

  expression(): Expr {
    let left = this.and();
    while (this.isPunct("||")) {
      const op = this.next();
      left = { kind: "logical", op: "||", left, right: this.and(), position: op.position };
    }
    return left;
  }

  private and(): Expr {
    let left = this.unary();
    while (this.isPunct("&&")) {
      const op = this.next();
      left = { kind: "logical", op: "&&", left, right: this.unary(), position: op.position };
    }
    return left;
  }

  private unary(): Expr {
    if (this.isPunct("!")) {
      const bang = this.next();
      return { kind: "not", operand: this.unary(), position: bang.position };
    }
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.postfix();
    const token = this.peek();
    const isOperator = (token.kind === "punct" || (token.kind === "ident" && token.text === "in")) && COMPARISONS.has(token.text);
    if (!isOperator) return left;
    this.next();
    const right = this.postfix();
    return { kind: "compare", op: token.text as ComparisonOperator, left, right, position: token.position };
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      if (this.isPunct(".")) {
        this.next();
        const name = this.peek();
        if (name.kind !== "ident") this.fail("a field or method name after '.'");
        this.next();
        if (this.isPunct("(")) {
          this.next();
          const args = this.peek().kind === "punct" && this.peek().text === ")" ? [] : this.arguments();
          this.expectPunct(")");
          expr = { kind: "method", object: expr, name: name.text, namePosition: name.position, args, position: expr.position };
        } else {
          expr = { kind: "member", object: expr, name: name.text, namePosition: name.position, position: expr.position };
        }
      } else if (this.isPunct("[")) {
        this.next();
        const index = this.expression();
        if (this.isPunct("..")) {
          this.next();
          const end = this.expression();
          this.expectPunct("]");
          expr = { kind: "slice", object: expr, start: index, end, position: expr.position };
        } else {
          if (!this.isPunct("]")) this.fail("']' or '..'");
          this.next();
          expr = { kind: "index", object: expr, index, position: expr.position };
        }
      } else {
        return expr;
      }
    }
  }

  private arguments(): Expr[] {
    const args = [this.expression()];
    while (this.isPunct(",")) {
      this.next();
      args.push(this.expression());
    }
    return args;
  }

  private primary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case "string":
        this.next();
        return { kind: "string", value: token.text, position: token.position };
      case "int":
        this.next();
        return { kind: "int", value: BigInt(token.text), position: token.position };
      case "ident": {
        this.next();
        if (token.text === "true" || token.text === "false") return { kind: "bool", value: token.text === "true", position: token.position };
        if (token.text === "Timestamp" || token.text === "CronSpan") {
          this.expectPunct("(");
          const args = this.isPunct(")") ? [] : this.arguments();
          this.expectPunct(")");
          return { kind: "call", name: token.text, args, position: token.position };
        }
        if (token.text === "in") this.fail("a value");
        return { kind: "ident", name: token.text, position: token.position };
      }
      case "punct":
        if (token.text === "(") {
          this.next();
          const inner = this.expression();
          this.expectPunct(")");
          inner.parenthesized = true;
          return inner;
        }
        if (token.text === "[") {
          this.next();
          const items = this.isPunct("]") ? [] : this.arguments();
          this.expectPunct("]");
          return { kind: "list", items, position: token.position };
        }
        if (token.text === "<") {
          throw new PolicySyntaxError("syntax", "expected a value, found '<' (placeholders like <ID> must be replaced by a quoted value)", token.position);
        }
        return this.fail("a value");
      default:
        return this.fail("a value");
    }
  }
}
