/**
 * A model's values read at once from its constants' definitions (`ModelValues`) against Z3's own
 * evaluation of each constant, on real models: the witness of every diff is read this way.
 */
import { describe, expect, it } from "vitest";
import { ModelValues, type ConstantInfo, type SolverModel } from "../../sdk/policy/smt/model-values";
import { modelHolds, newSolver, solverModel, withSolver } from "../../sdk/policy/smt/runtime";

describe("model values", () => {
  it("reads every constant as Z3 evaluates it: negative, large, boolean, left free, fixed", async () => {
    await withSolver(async (z) => {
      const names = new Map<object, ConstantInfo>();
      const int = (name: string) => {
        const term = z.Int.const(name);
        names.set(term, { name, sort: "Int" });
        return term;
      };
      const bool = (name: string) => {
        const term = z.Bool.const(name);
        names.set(term, { name, sort: "Bool" });
        return term;
      };
      const [negative, large, chained, free] = [int("k0_i_str_wallet.id"), int("k1_i_count_x-y/z"), int("n_0"), int("k3_free")];
      const [on, off, loose] = [bool("chain_eth.tx"), bool("k5_b_tag_0_t"), bool("k6_b_unused")];
      const fixed = z.Int.val(42);
      names.set(fixed, { value: "42" });
      const solver = newSolver(z);
      solver.add(negative.lt(-7), large.gt(10n ** 30n), chained.eq(negative.add(3)), on, z.Not(off), z.Or(loose, z.Not(loose)));
      expect(await solver.check()).toBe("sat");
      const model = solver.model();
      const values = ModelValues.of(solverModel(model), names);
      for (const term of [negative, large, chained, free, on, off, loose]) {
        expect(values.text(term)).toBe(model.eval(term, true).toString().replace(/[()\s]/g, ""));
      }
      // A formula's truth in the model, read without printing it, is Z3's evaluation.
      for (const formula of [on, off, loose, negative.lt(-7), z.Not(on), large.le(10n ** 30n), z.And(on, chained.eq(negative.add(3)))]) {
        expect(modelHolds(model, formula)).toBe(model.eval(formula, true).toString() === "true");
      }
      expect(values.int(negative) < -7n).toBe(true);
      expect(values.int(large) > 10n ** 30n).toBe(true);
      expect(values.int(free)).toBe(0n);
      expect([values.bool(on), values.bool(off), values.bool(loose)]).toEqual([true, false, false]);
      expect(values.text(fixed)).toBe("42");
      expect(() => values.text(negative.add(1))).toThrow(/not a constant of the request space/);
    });
  });

  it("evaluates a constant the model defines by another term instead of guessing it", () => {
    const term = {};
    const evaluated: unknown[] = [];
    const model: SolverModel = {
      definitions: () => new Map([["a", "-3"], ["b", undefined]]),
      eval: (e: never) => {
        evaluated.push(e);
        return { toString: () => "(- 2)" };
      },
    };
    const a = {};
    const values = ModelValues.of(model, new Map<object, ConstantInfo>([[a, { name: "a", sort: "Int" }], [term, { name: "b", sort: "Int" }]]));
    expect(values.int(a)).toBe(-3n);
    expect(values.int(term)).toBe(-2n);
    expect(evaluated).toEqual([term]);
  });
});
