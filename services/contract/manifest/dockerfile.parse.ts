import { DockerfileParser, type Instruction, type PropertyInstruction } from 'dockerfile-ast';

// Reads what the manifest checks need from a Dockerfile: its stages, what each is built on,
// where it works and what it runs. dockerfile-ast does the lexing (continuations, comments,
// escape directive); the Docker semantics of ARG, ENV and stage inheritance are applied here.

/** Variables in scope: a name declared without a value maps to undefined. */
type Vars = Map<string, string | undefined>;

export interface DockerCommand {
  /** 1-based line of the instruction. */
  line: number;
  form: 'exec' | 'shell';
  /** The command as one line: exec words joined by spaces, or the shell text. */
  text: string;
}

export interface DockerWorkdir {
  line: number;
  /** As written, without surrounding quotes. */
  raw: string;
  /** The absolute directory it leaves the stage in, or null when a variable has no value. */
  resolved: string | null;
}

export interface DockerStage {
  index: number;
  line: number;
  /** The `AS` name, lower-cased as Docker does, or null. */
  name: string | null;
  /** The base as written (`${BASE}`), and after the global ARGs (null when one has no value). */
  imageRaw: string;
  image: string | null;
  /** The earlier stage this one is built on, or null for an image from outside the Dockerfile. */
  parent: number | null;
  workdirs: DockerWorkdir[];
  /** The working directory the stage ends in: null when unresolved, undefined when never set. */
  workdir: string | null | undefined;
  cmds: DockerCommand[];
  /** An ENTRYPOINT in the stage resets a CMD inherited from its base. */
  setsEntrypoint: boolean;
  /** ENV values the stage ends with; a stage built on it starts with them. */
  env: Vars;
}

const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** Docker's `$X`, `${X}`, `${X:-word}` and `${X:+word}`; null when a variable has no value. */
export function substitute(text: string, vars: Vars): string | null {
  let unresolved = false;
  const out = text.replace(VARIABLE, (_match, braced?: string, op?: string, word?: string, bare?: string) => {
    const name = (braced ?? bare) as string;
    const value = vars.get(name);
    const empty = value === undefined || (op?.startsWith(':') === true && value === '');
    if (op?.endsWith('-')) return empty ? (word ?? '') : (value as string);
    if (op?.endsWith('+')) return empty ? '' : (word ?? '');
    if (value === undefined) unresolved = true;
    return value ?? '';
  });
  return unresolved ? null : out;
}

function unquote(text: string): string {
  const t = text.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.endsWith(t[0]) ? t.slice(1, -1) : t;
}

function lineOf(instruction: Instruction): number {
  return instruction.getRange().start.line + 1;
}

/** ARG and ENV declarations as name/value pairs (ENV also in its old `ENV NAME value` form). */
function declarations(instruction: Instruction, vars: Vars): [string, string | undefined][] {
  const words = instruction.getArguments().map((arg) => arg.getValue());
  if (instruction.getKeyword() === 'ENV' && words.length > 0 && !words[0].includes('=')) {
    const content = instruction.getArgumentsContent() ?? '';
    const rest = content.slice(content.indexOf(words[0]) + words[0].length);
    return [[words[0], substitute(unquote(rest), vars) ?? undefined]];
  }
  // The parser has already taken off quotes and joined continued lines.
  return (instruction as PropertyInstruction).getProperties().map((property) => {
    const value = property.getValue();
    return [property.getName(), value === null ? undefined : (substitute(value, vars) ?? undefined)];
  });
}

function command(instruction: Instruction): DockerCommand {
  const content = (instruction.getArgumentsContent() ?? '').trim();
  if (content.startsWith('[')) {
    try {
      const words: unknown = JSON.parse(content);
      if (Array.isArray(words) && words.every((word) => typeof word === 'string')) {
        return { line: lineOf(instruction), form: 'exec', text: words.join(' ') };
      }
    } catch {
      // Not JSON: Docker runs it in the shell form, and so do we.
    }
  }
  return { line: lineOf(instruction), form: 'shell', text: content };
}

function fromParts(instruction: Instruction): { image: string; name: string | null } {
  const words = instruction
    .getArguments()
    .map((arg) => arg.getValue())
    .filter((word) => !word.startsWith('--'));
  const hasName = words.length >= 3 && words[1].toLowerCase() === 'as';
  return { image: words[0] ?? '', name: hasName ? words[2].toLowerCase() : null };
}

/** The last Dockerfile parsed, and its instructions: a deploy's checks and its in-process build each read the same text. */
let lastParsed: { text: string; instructions: readonly Instruction[] } | null = null;

/**
 * The Dockerfile's instructions, as dockerfile-ast reads them. The last text's are kept: a
 * redeploy parsed its Dockerfile four times (its tail, its config, the manifest's two checks),
 * 3-5 ms of its thread (docs/scale.md, "Session 42"). Callers read them and never change them.
 */
export function dockerfileInstructions(text: string): readonly Instruction[] {
  if (lastParsed?.text !== text) lastParsed = { text, instructions: DockerfileParser.parse(text).getInstructions() };
  return lastParsed.instructions;
}

export function readDockerfile(text: string): DockerStage[] {
  const globals: Vars = new Map();
  const stages: DockerStage[] = [];
  let stage: DockerStage | undefined;
  let vars: Vars = new Map();

  for (const instruction of dockerfileInstructions(text)) {
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const { image: imageRaw, name } = fromParts(instruction);
      const image = substitute(imageRaw, globals);
      const parent = image === null ? -1 : stages.findIndex((s) => s.name !== null && s.name === image.toLowerCase());
      const base = parent >= 0 ? stages[parent] : undefined;
      stage = {
        index: stages.length,
        line: lineOf(instruction),
        name,
        imageRaw,
        image,
        parent: base ? parent : null,
        workdirs: [],
        workdir: base?.workdir,
        cmds: [],
        setsEntrypoint: false,
        env: new Map(base?.env),
      };
      stages.push(stage);
      vars = new Map(stage.env);
      continue;
    }
    if (!stage) {
      // Before the first FROM only ARG counts: global ARGs are seen by FROM lines.
      if (keyword === 'ARG') for (const [k, v] of declarations(instruction, globals)) globals.set(k, v);
      continue;
    }
    if (keyword === 'ARG') {
      // `ARG NAME` in a stage brings a global ARG's value into it.
      for (const [k, v] of declarations(instruction, vars)) vars.set(k, v ?? globals.get(k));
    } else if (keyword === 'ENV') {
      for (const [k, v] of declarations(instruction, vars)) {
        vars.set(k, v);
        stage.env.set(k, v);
      }
    } else if (keyword === 'WORKDIR') {
      const raw = unquote(instruction.getArgumentsContent() ?? '');
      const path = substitute(raw, vars);
      // A relative WORKDIR continues from the current one; with none set, from `/`.
      let resolved: string | null = null;
      if (path !== null && path.startsWith('/')) resolved = normalizeDir(path);
      else if (path !== null && stage.workdir !== null) resolved = normalizeDir(`${stage.workdir ?? ''}/${path}`);
      stage.workdirs.push({ line: lineOf(instruction), raw, resolved });
      stage.workdir = resolved;
    } else if (keyword === 'CMD') {
      stage.cmds.push(command(instruction));
    } else if (keyword === 'ENTRYPOINT') {
      stage.setsEntrypoint = true;
    }
  }
  return stages;
}

function normalizeDir(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The CMD a stage runs: its own last one, else its base stage's unless it sets ENTRYPOINT. */
export function effectiveCmd(stages: DockerStage[], stage: DockerStage): DockerCommand | null {
  const own = stage.cmds.at(-1);
  if (own) return own;
  if (stage.setsEntrypoint || stage.parent === null) return null;
  return effectiveCmd(stages, stages[stage.parent]);
}

/** The image from outside the Dockerfile that a stage ultimately stands on (null: unresolved). */
export function rootImage(stages: DockerStage[], stage: DockerStage): string | null {
  return stage.parent === null ? stage.image : rootImage(stages, stages[stage.parent]);
}
