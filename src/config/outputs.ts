// Where a run may write what it produces (an AiRun's spec.output): below the outputs folder, at
// the path the file names relative to the config root; never over config, the state or secrets.

import fs from 'node:fs';
import path from 'node:path';
import type { FieldPath } from '../kinds/kind.js';
import { isIgnored, isInside, realpathNearest } from './paths.js';

export interface OutputBounds {
  /** Absolute config root as given. */
  readonly root: string;
  /** Absolute outputs folder (the root unless `--outputs DIR`), and where it really is. */
  readonly outputs: string;
  readonly realOutputs: string;
  /** Edgesync's own files and folders (state, secrets), written and real forms. */
  readonly own: readonly string[];
}

/** YAML is config: an output never replaces (or adds) a file that discovery would read. */
export const YAML_NAME = /\.ya?ml$/i;

/** `ref` from `yamlFile` checked as an output; relative to the outputs folder with '/', or undefined after an issue. */
export function checkOutputPath(bounds: OutputBounds, yamlFile: string, ref: string, at: FieldPath, issue: (path: FieldPath, message: string) => void): string | undefined {
  const refuse = (message: string): undefined => (issue(at, message), undefined);
  if (typeof ref !== 'string' || ref === '') return refuse('expected a file path relative to this YAML file');
  if (path.isAbsolute(ref)) return refuse(`"${ref}" is an absolute path: outputs are relative to the YAML file and stay inside the config root`);
  const full = path.resolve(path.dirname(yamlFile), ref);
  const rel = path.relative(bounds.root, full);
  if (!isInside(bounds.root, full)) return refuse(`"${ref}" leaves the config root: refused`);
  if (rel === '') return refuse(`"${ref}" is the config root itself, not a file`);
  // The same place relative to the outputs folder: with the default folder, the file as written.
  const target = path.join(bounds.outputs, rel);
  const real = realpathNearest(target);
  if (!isInside(bounds.realOutputs, real)) {
    const folder = bounds.outputs === bounds.root ? 'the config root' : `the outputs folder (${bounds.outputs})`;
    return refuse(`"${ref}" leads outside ${folder} through a symlink: refused`);
  }
  if (YAML_NAME.test(target) || YAML_NAME.test(real)) return refuse(`"${ref}" is a YAML file, which is config: an output never replaces one`);
  if (isIgnored(bounds.own, target, real)) return refuse(`"${ref}" is one of edgesync's own files (the state or the secrets): refused`);
  if (fs.statSync(real, { throwIfNoEntry: false })?.isDirectory()) return refuse(`"${ref}" is a folder, not a file`);
  return rel.split(path.sep).join('/');
}
