import type { Instruction } from 'dockerfile-ast';
import { dockerfileInstructions } from '@demo-rooms/contract/manifest';
import { NoTail } from './dockerfile-tail.js';

// The image config's fields a changed metadata step after the last RUN sets (ENV, CMD, ENTRYPOINT,
// EXPOSE, LABEL, USER, STOPSIGNAL), worked out without the engine the way buildah (podman 4.3)
// writes them, so a redeploy whose tail changed only there keeps its layers and gets a new config
// (issue 48, item 1). Only what is sure is modelled: no variable or escape (the engine expands
// them), numeric users only (a name is resolved by the engine against the image's passwd), EXPOSE
// without ranges, shell-form CMD/ENTRYPOINT only under the default shell. Anything else is a NoTail
// with the reason, and the engine builds.
//
// The model starts from the final stage's base config and applies every step of that stage that
// touches a field, in order. The deploy checks it first on the live build: the same model with the
// live Dockerfile's tail must give the live config's fields, or the engine builds
// (in-process-image.ts). Fields no tail step touches are the live config's as they stand.

/** The fields of an image's `config` this models, as the engine's inspect names them. */
export interface ConfigFields {
  Env?: string[];
  Cmd?: string[] | null;
  Entrypoint?: string[] | null;
  WorkingDir?: string;
  User?: string;
  ExposedPorts?: Record<string, object>;
  Labels?: Record<string, string>;
  StopSignal?: string;
}

type Field = 'Env' | 'Cmd' | 'WorkingDir' | 'User' | 'ExposedPorts' | 'Labels' | 'StopSignal';

/** The field(s) each keyword sets; ENTRYPOINT also resets a Cmd no CMD of the stage set, so both count as 'Cmd'. */
const FIELD: Record<string, Field> = {
  ENV: 'Env',
  CMD: 'Cmd',
  ENTRYPOINT: 'Cmd',
  WORKDIR: 'WorkingDir',
  USER: 'User',
  EXPOSE: 'ExposedPorts',
  LABEL: 'Labels',
  STOPSIGNAL: 'StopSignal',
};

/** The engine's own label on every image it builds: kept from the live config, never from the Dockerfile. */
const ENGINE_LABELS = ['io.buildah.version'];

/** The final stage's base reference (null for `scratch`), and its steps that set a modelled field. */
export function finalStage(dockerfile: string): { base: string | null; steps: Instruction[] } {
  const instructions = dockerfileInstructions(dockerfile);
  const from = instructions.map((i) => i.getKeyword()).lastIndexOf('FROM');
  if (from < 0) throw new NoTail('the Dockerfile has no FROM');
  const stages = instructions
    .slice(0, from)
    .filter((i) => i.getKeyword() === 'FROM')
    .map((i) => /\s+AS\s+(\S+)/i.exec(i.getArgumentsContent() ?? '')?.[1]?.toLowerCase());
  const reference = (instructions[from].getArgumentsContent() ?? '').split(/\s+/).find((word) => !word.startsWith('--')) ?? '';
  if (stages.includes(reference.toLowerCase()))
    throw new NoTail('its last stage starts from another stage, whose config only the engine knows');
  return { base: reference === 'scratch' ? null : reference, steps: instructions.slice(from + 1) };
}

/** The fields the steps set (a keyword's field), for telling which fields a tail touched. */
export function fieldsSet(steps: Instruction[]): Set<Field> {
  return new Set(steps.map((step) => FIELD[step.getKeyword()]).filter(Boolean));
}

/**
 * The fields `fields` as the engine leaves them after `steps` on `base`; only the fields named are
 * worked out (a step touching another field is not read, so it cannot make the model refuse).
 * `live` gives the engine's own labels.
 */
export function modelConfig(base: ConfigFields, steps: Instruction[], fields: Set<Field>, live: ConfigFields): ConfigFields {
  const out: ConfigFields = structuredClone({
    Env: base.Env ?? [],
    Cmd: base.Cmd ?? null,
    Entrypoint: base.Entrypoint ?? null,
    WorkingDir: base.WorkingDir ?? '',
    User: base.User ?? '',
    ExposedPorts: base.ExposedPorts ?? {},
    Labels: base.Labels ?? {},
    StopSignal: base.StopSignal ?? '',
  });
  let cmdSet = false;
  let shell = false;
  for (const step of steps) {
    const keyword = step.getKeyword();
    if (keyword === 'SHELL') shell = true;
    const field = FIELD[keyword];
    if (!field || !fields.has(field)) continue;
    const line = step.getRange().start.line + 1;
    const content = (step.getArgumentsContent() ?? '').trim();
    if (/[$\\]/.test(content) || content.includes('\n'))
      throw new NoTail(`the ${keyword} on line ${line} has a variable, an escape or a continuation, which the engine expands`);
    if (keyword === 'ENV')
      for (const [name, value] of properties(step, line))
        out.Env = [...out.Env!.filter((e) => !e.startsWith(`${name}=`)), `${name}=${value}`];
    if (keyword === 'LABEL') for (const [name, value] of properties(step, line)) out.Labels![name] = value;
    if (keyword === 'CMD') {
      out.Cmd = command(content, line, keyword, shell);
      cmdSet = true;
    }
    if (keyword === 'ENTRYPOINT') {
      out.Entrypoint = command(content, line, keyword, shell);
      if (!cmdSet) out.Cmd = null;
    }
    if (keyword === 'WORKDIR') out.WorkingDir = content.startsWith('/') ? content : `${out.WorkingDir!.replace(/\/$/, '')}/${content}`;
    if (keyword === 'USER') {
      if (!/^\d+(:\d+)?$/.test(content))
        throw new NoTail(`the USER on line ${line} names a user, which the engine resolves; a numeric id is laid without it`);
      out.User = content;
    }
    if (keyword === 'EXPOSE')
      for (const port of content.split(/\s+/)) {
        const m = /^(\d+)(?:\/(tcp|udp|sctp))?$/i.exec(port);
        if (!m) throw new NoTail(`the EXPOSE on line ${line} names ${port}, not one port`);
        out.ExposedPorts![`${m[1]}/${(m[2] ?? 'tcp').toLowerCase()}`] = {};
      }
    if (keyword === 'STOPSIGNAL') out.StopSignal = content;
  }
  for (const name of ENGINE_LABELS) if (live.Labels?.[name] !== undefined) out.Labels![name] = live.Labels[name];
  return Object.fromEntries(
    [...fields].flatMap((field) => (field === 'Cmd' ? (['Cmd', 'Entrypoint'] as const) : [field])).map((key) => [key, out[key]]),
  );
}

/** Whether two configs agree on the fields named, an absent field and an empty one alike (the engine leaves empty ones out). */
export function sameFields(a: ConfigFields, b: ConfigFields, fields: (keyof ConfigFields)[]): boolean {
  const norm = (value: unknown) => {
    if (value === undefined || value === null || value === '') return null;
    if (Array.isArray(value)) return value.length === 0 ? null : JSON.stringify(value);
    if (typeof value === 'object') return Object.keys(value).length === 0 ? null : JSON.stringify(Object.entries(value).sort());
    return JSON.stringify(value);
  };
  return fields.every((field) => norm(a[field]) === norm(b[field]));
}

/** `config` with the modelled fields put in, empty ones left out as the engine leaves them. */
export function withFields(config: Record<string, unknown>, fields: ConfigFields): Record<string, unknown> {
  const out = { ...config };
  for (const [key, value] of Object.entries(fields)) {
    const empty = sameFields({ [key]: value }, {}, [key as keyof ConfigFields]);
    if (empty) delete out[key];
    else out[key] = value;
  }
  return out;
}

function properties(step: Instruction, line: number): [string, string][] {
  const found = (step as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }).getProperties();
  if (found.length === 0) throw new NoTail(`the ${step.getKeyword()} on line ${line} sets nothing`);
  return found.map((p) => [p.getName(), p.getValue() ?? '']);
}

/** A CMD or ENTRYPOINT's value: its JSON array, or the default shell around its text. */
function command(content: string, line: number, keyword: string, shell: boolean): string[] {
  if (content.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      parsed = null;
    }
    if (!Array.isArray(parsed) || parsed.some((part) => typeof part !== 'string'))
      throw new NoTail(`the ${keyword} on line ${line} is not a JSON array of strings, which the engine reads as a shell command`);
    return parsed as string[];
  }
  if (shell) throw new NoTail(`the ${keyword} on line ${line} is in shell form after a SHELL, which only the engine applies`);
  return ['/bin/sh', '-c', content];
}
