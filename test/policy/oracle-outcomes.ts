/**
 * Each policy's outcome on every activity of the oracle's domain, with the engine's evaluator,
 * without evaluating it thousands of times over activities it cannot tell apart.
 *
 * The evaluator reads a request only through the identifiers an expression names (a keyword's
 * value, `input.keywords[name]`) and the clock (`time`, and CronSpan through `input.nowMs`); see
 * `sdk/policy/evaluate.ts`. So two activities that agree on every keyword a policy's expressions
 * name, and on the time when they read it, get the same outcome from `evaluatePolicy`. The
 * domain is split into those classes once per set of names read, the policy evaluated once per
 * class (on its first activity), and every activity given its class's outcome: the domain stays
 * whole, only repeated evaluations go. `test/policy/oracle.test.ts` checks the result against
 * evaluating every activity.
 */
import { walk } from "../../sdk/policy/ast";
import { compiledExpression } from "../../sdk/policy/compile";
import { evaluatePolicy, type EvaluationInput, type Outcome, type PolicyRecord } from "../../sdk/policy";

/** The clock, as one more thing an expression may read. */
const CLOCK = "\u0000now";

/** The keywords and the clock a policy's expressions read (a name no activity has reads nothing that varies). */
function namesRead(policy: PolicyRecord, known: ReadonlySet<string>): string[] {
  const names = new Set<string>();
  for (const [kind, text] of [["condition", policy.condition], ["consensus", policy.consensus], ["time", policy.time]] as const) {
    if (!text || text.trim() === "") continue;
    const { expr } = compiledExpression(kind, text);
    // An expression that does not compile is an error on every activity: it reads nothing.
    if (!expr) continue;
    walk(expr, (node) => {
      if (node.kind === "ident" && node.name === "time") names.add(CLOCK);
      else if (node.kind === "ident" && known.has(node.name)) names.add(node.name);
      else if (node.kind === "call") names.add(CLOCK);
    });
  }
  return [...names].sort();
}

/**
 * `run` with errors taking no stack trace. The evaluator reports a clause that cannot be read (a
 * keyword the request lacks) by throwing, and the engine turns the throw into OUTCOME_ERROR,
 * keeping only its message: over the domain most policies error on most classes, and the stack
 * each throw takes was most of the oracle's time and garbage. The outcomes are the same.
 */
export function withoutStackTraces<T>(run: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return run();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The outcomes of policies on a fixed list of evaluator inputs. */
export class DomainOutcomes {
  private readonly known: ReadonlySet<string>;
  /** Per activity, each name it can be read by, as text: the value of the keyword, or the time. */
  private readonly readable: readonly ReadonlyMap<string, string>[];
  /** Per set of names read: each activity's class, and the first activity of each class. */
  private readonly partitions = new Map<string, { classOf: Int32Array; representatives: number[] }>();
  private readonly outcomes = new Map<string, readonly Outcome[]>();

  constructor(private readonly inputs: readonly EvaluationInput[]) {
    this.known = new Set(inputs.flatMap((input) => Object.keys(input.keywords)));
    this.readable = inputs.map((input) => {
      const values = new Map<string, string>([[CLOCK, String(input.nowMs)]]);
      for (const name of this.known) values.set(name, JSON.stringify(input.keywords[name], (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ?? "absent");
      return values;
    });
  }

  /** The policy's outcome on each input, in the inputs' order. */
  of(policy: PolicyRecord): readonly Outcome[] {
    const key = JSON.stringify([policy.effect, policy.condition ?? "", policy.consensus ?? "", policy.time ?? ""]);
    let found = this.outcomes.get(key);
    if (!found) {
      const { classOf, representatives } = this.partition(namesRead(policy, this.known));
      const byClass = withoutStackTraces(() => representatives.map((i) => evaluatePolicy(policy, this.inputs[i]!).outcome));
      found = Array.from(classOf, (c) => byClass[c]!);
      // The pairs of one run share few policies beyond a pair's two sides: keep the memory flat.
      if (this.outcomes.size >= 256) this.outcomes.clear();
      this.outcomes.set(key, found);
    }
    return found;
  }

  private partition(names: readonly string[]): { classOf: Int32Array; representatives: number[] } {
    const key = names.join("\u0001");
    let found = this.partitions.get(key);
    if (!found) {
      const classes = new Map<string, number>();
      const classOf = new Int32Array(this.inputs.length);
      const representatives: number[] = [];
      this.readable.forEach((values, i) => {
        const signature = names.map((name) => values.get(name)).join("\u0001");
        let c = classes.get(signature);
        if (c === undefined) {
          c = representatives.length;
          classes.set(signature, c);
          representatives.push(i);
        }
        classOf[i] = c;
      });
      found = { classOf, representatives };
      this.partitions.set(key, found);
    }
    return found;
  }
}
