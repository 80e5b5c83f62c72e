/**
 * @module resources/runtime/key-material
 * What Wallet and PrivateKey share: key material is never deleted by accident. The resource
 * classes set `retainOnDelete` unless the program says `deleteWithoutExport: true`, and the
 * runtime sends that flag on delete, so a key that was never exported is deleted only when the
 * program asked for it in so many words.
 */

/** The input every key-material resource has. */
export interface DeletionChoice {
  deleteWithoutExport: boolean;
}

/** Its equality: unset is false (an output recorded before the flag existed, or an import). */
export const sameDeletionChoice = (a: unknown, b: unknown) => (a ?? false) === (b ?? false);

/**
 * Its description, for outputs; an input adds `default: false`. It changes in place (what
 * destroy does, nothing on the service).
 */
export const deleteWithoutExportDescription = (what: string) => ({
  type: "boolean" as const,
  description:
    `Whether destroy (or a replacement) deletes the ${what} even though its key material was never exported. Default false: the ` +
    `${what} is retained by Pulumi (\`retainOnDelete\`) and stays in the organization. Changes in place.`,
  // It decides the resource options, which cannot wait for an output.
  plain: true as const,
});

/** The flag as the outputs keep it (the service does not hold it). */
export const carriedDeletionChoice = (inputs: Partial<DeletionChoice>) => ({ deleteWithoutExport: inputs.deleteWithoutExport === true });
