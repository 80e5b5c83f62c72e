/**
 * @module policy/smt/model-values
 * A model's values read out of Z3 at once: its constants' literals read in a few calls apiece
 * (`modelDefinitions` of the runtime), where reading each constant with `model.eval` and
 * printing the answer sets up Z3's printer each time (close to a millisecond on the WebAssembly
 * build, and a witness reads hundreds). The values are plain data: a witness is read from them
 * with no call into Z3.
 */

/** What a model offers: its constants' definitions, and evaluation for a constant whose value is not a literal there. */
export interface SolverModel {
  /** Each constant the model defines, by name: its literal value (`12`, `-3`, `true`), or undefined when another term defines it. */
  definitions(): ReadonlyMap<string, string | undefined>;
  eval(e: never, complete?: boolean): { toString(): string };
}

/** A constant of a request space: its solver name and sort, or a value fixed when it was made. */
export type ConstantInfo = { readonly name: string; readonly sort: "Int" | "Bool" } | { readonly value: string };

/** Every constant a request space made, by the term that stands for it. */
export type ConstantNames = ReadonlyMap<object, ConstantInfo>;

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
    for (const [name, literal] of model.definitions()) {
      if (literal !== undefined) values.set(name, literal);
      else (unread ??= new Set()).add(name);
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
