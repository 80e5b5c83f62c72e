/**
 * Writes the generated TypeScript resource classes (see `resource-classes.ts`), the data
 * functions (`data-functions.ts`) and the documentation drawn from the registry
 * (`resource-docs.ts`):
 *   npm run gen:resources
 * Prints the files it changed; run it after editing a resource description.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generatedDataFiles } from "./data-functions";
import { generatedResourceFiles } from "./resource-classes";
import { generatedDocFiles } from "./resource-docs";

const root = path.resolve(__dirname, "..", "..");
for (const [file, content] of Object.entries({ ...generatedResourceFiles(), ...generatedDataFiles(), ...generatedDocFiles(root) })) {
  const target = path.join(root, file);
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : undefined;
  if (current === content) continue;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
  process.stdout.write(`gen-resources: wrote ${file}\n`);
}
