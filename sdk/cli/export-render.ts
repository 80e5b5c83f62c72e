/**
 * @module cli/export-render
 * The program writers of `keyform export`: the same ones the docs and the schema write every
 * resource's example with (`resources/runtime/program-render`).
 */
export { RENDERERS, type Renderer } from "../resources/runtime/program-render";
