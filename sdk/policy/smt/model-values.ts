/**
 * @module policy/smt/model-values
 * A model's values read out of Z3 at once: one call (`Z3_model_to_string`) and a parse, where
 * reading each constant with `model.eval` is a call into Z3 apiece (close to a millisecond on the
 * WebAssembly build, and a witness reads hundreds). The values are plain data, so a witness is
 * read from them while the solver's thread works on the next check: Z3 is not thread safe, and
 * nothing may call into it then.
 */

/** What a model offers: its text, and evaluation for a constant whose value is not a literal there. */
export interface SolverModel {
  sexpr(): string;
  eval(e: never, complete?: boolean): { toString(): string };
}

/** A constant of a request space: its solver name and sort, or a value fixed when it was made. */
export type ConstantInfo = { readonly name: string; readonly sort: "Int" | "Bool" } | { readonly value: string };

/** Every constant a request space made, by the term that stands for it. */
export type ConstantNames = ReadonlyMap<object, ConstantInfo>;

/** `(define-fun name () Sort value)`, the form a model gives a constant; a value is a literal (`12`, `(- 3)`, `true`) or another term. */
const DEFINITION = /\(define-fun (\S+) \(\) (Int|Bool)\s+((?:\(- \d+\))|\d+|true|false)?/g;

/** A model's values of the constants of one request space. */
export class ModelValues {
  private constructor(
    private readonly values: ReadonlyMap<string, string>,
    private readonly constants: ConstantNames,
  ) {}

  /**
   * Reads `model` once. A constant the model defines by another term than a literal (Z3 does not
   * for these questions, but may) is evaluated on its own, so no value is ever guessed.
   */
  static of(model: SolverModel, constants: ConstantNames): ModelValues {
    const values = new Map<string, string>();
    let unread: Set<string> | undefined;
    for (const [, name, , literal] of model.sexpr().matchAll(DEFINITION)) {
      if (literal !== undefined) values.set(name!, literal.replace(/[()\s]/g, ""));
      else (unread ??= new Set()).add(name!);
    }
    if (unread !== undefined) {
      for (const [term, info] of constants) {
        if ("name" in info && unread.has(info.name)) values.set(info.name, model.eval(term as never, true).toString().replace(/[()\s]/g, ""));
      }
    }
    return new ModelValues(values, constants);
  }

  /**
   * The value of `term` as the solver writes it, without its brackets and spaces (`12`, `-3`,
   * `true`). A constant the model leaves free has its sort's default (0, false), as model
   * completion gives it.
   * @throws {Error} when `term` is not a constant of the space: only its constants are read.
   */
  text(term: object): string {
    const info = this.constants.get(term);
    if (info === undefined) throw new Error("model values: the term read is not a constant of the request space");
    if ("value" in info) return info.value;
    return this.values.get(info.name) ?? (info.sort === "Int" ? "0" : "false");
  }

  int(term: object): bigint {
    return BigInt(this.text(term));
  }

  bool(term: object): boolean {
    return this.text(term) === "true";
  }
}
