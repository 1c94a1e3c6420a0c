// The BuildContext handed to kinds: `file:`/`dir:` references read relative to the YAML file,
// refused when they leave the config root (by `..`, an absolute path or a symlink) or are too big.
// Output paths are checked by outputs.ts. What a build looks at is recorded (./stamps.ts).

import fs from 'node:fs';
import path from 'node:path';
import type { BuildContext, FieldPath, SourceLocation } from '../kinds/kind.js';
import { sizeProblem } from './files.js';
import { checkOutputPath, type OutputBounds } from './outputs.js';
import { isIgnored, isInside, realpathNearest } from './paths.js';
import { compareStrings } from '../util/compare.js';
import { stampOf, type BuildInputs } from './stamps.js';

export interface ReferenceBounds {
  /** Absolute config root as given, and its realpath. */
  readonly root: string;
  readonly realRoot: string;
  /** Edgesync's own files and folders: never read, never written by a run. */
  readonly ignore: readonly string[];
  readonly maxReferencedBytes: number;
  /** See BuildContext.now. */
  readonly now: () => number;
  /** Where runs write their outputs. @default the root */
  readonly outputs?: string;
}

/**
 * `inputs`: told every path looked at, so a later load can tell whether the build would come out the same.
 * `yamlFile`: the file references are relative to, or which file wrote the field at a path (an environment's merge).
 */
export function createBuildContext(
  bounds: ReferenceBounds,
  yamlFile: string | ((at: FieldPath) => string),
  issue: BuildContext['issue'],
  place: (path: FieldPath) => SourceLocation,
  inputs?: BuildInputs,
): BuildContext {
  const fileOf = typeof yamlFile === 'string' ? () => yamlFile : yamlFile;
  const baseOf = (at: FieldPath) => path.dirname(fileOf(at));
  const stamped = (real: string, stat: fs.Stats): fs.Stats => (inputs?.record({ path: real, real, stamp: stampOf(stat) }), stat);

  /** The reference's realpath, or undefined after recording why it cannot be used. */
  const resolve = (ref: string, at: FieldPath): string | undefined => {
    const refuse = (message: string): undefined => (issue(at, message), undefined);
    if (typeof ref !== 'string' || ref === '') return refuse('expected a file path relative to this YAML file');
    if (path.isAbsolute(ref)) return refuse(`"${ref}" is an absolute path: references are relative to the YAML file and stay inside the config root`);
    const full = path.resolve(baseOf(at), ref);
    if (!isInside(bounds.root, full)) return refuse(`"${ref}" leaves the config root: refused`);
    let real: string;
    try {
      real = fs.realpathSync(full);
    } catch {
      inputs?.record({ path: full });
      return refuse(`"${ref}" does not exist (looked for ${path.relative(process.cwd(), full) || '.'})`);
    }
    inputs?.record({ path: full, real });
    if (!isInside(bounds.realRoot, real)) return refuse(`"${ref}" leads outside the config root through a symlink: refused`);
    if (isIgnored(bounds.ignore, full, real)) return refuse(`"${ref}" is one of edgesync's own files (state, secrets or outputs), not config`);
    return real;
  };

  const streamFile = (ref: string, at: FieldPath): { path: string; size: number } | undefined => {
    const real = resolve(ref, at);
    if (real === undefined) return undefined;
    const stat = stamped(real, fs.statSync(real));
    if (!stat.isFile()) return void issue(at, `"${ref}" is not a file`);
    return { path: real, size: stat.size };
  };

  const readFile = (ref: string, at: FieldPath): Buffer | undefined => {
    const file = streamFile(ref, at);
    if (file === undefined) return undefined;
    const tooBig = sizeProblem(file.size, bounds.maxReferencedBytes, 'maxReferencedBytes');
    if (tooBig) return void issue(at, `"${ref}": ${tooBig}`);
    return fs.readFileSync(file.path);
  };

  const listFiles = (ref: string, at: FieldPath): { rel: string; ref: string; size: number }[] | undefined => {
    const real = resolve(ref, at);
    if (real === undefined) return undefined;
    if (!stamped(real, fs.statSync(real)).isDirectory()) return void issue(at, `"${ref}" is not a folder`);
    const out: { rel: string; ref: string; size: number }[] = [];
    const seen = new Set([real]);
    const prefix = ref.replace(/[/\\]+$/, '');
    const walk = (dir: string, rel: string): boolean => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (entry.name.startsWith('.')) continue;
        const childRel = rel ? `${rel}/${entry.name}` : entry.name;
        const childRef = `${prefix}/${childRel}`;
        const childReal = resolve(childRef, at);
        if (childReal === undefined) return false;
        const stat = stamped(childReal, fs.statSync(childReal));
        if (stat.isDirectory()) {
          if (seen.has(childReal)) continue; // a symlink loop
          seen.add(childReal);
          if (!walk(childReal, childRel)) return false;
        } else if (stat.isFile()) {
          const tooBig = sizeProblem(stat.size, bounds.maxReferencedBytes, 'maxReferencedBytes');
          if (tooBig) return (issue(at, `"${childRef}": ${tooBig}`), false);
          out.push({ rel: childRel, ref: childRef, size: stat.size });
        }
      }
      return true;
    };
    if (!walk(real, '')) return undefined;
    return out.sort((a, b) => compareStrings(a.rel, b.rel));
  };

  let outputBounds: OutputBounds | undefined;
  const outputPath = (ref: string, at: FieldPath): string | undefined => {
    // Where an output lands depends on folders runs create: checked again at every load.
    inputs?.unstamped();
    const outputs = bounds.outputs ?? bounds.root;
    outputBounds ??= { root: bounds.root, outputs, realOutputs: realpathNearest(outputs), own: bounds.ignore };
    return checkOutputPath(outputBounds, fileOf(at), ref, at, issue);
  };

  const now = (): number => (inputs?.unstamped(), bounds.now());
  return { root: bounds.root, issue, readFile, streamFile, listFiles, outputPath, now, place };
}
