// The rule table shared by the zod tests and the JSON Schema agreement test: for each rule and
// each limit of spec 2.1, a case at the limit that passes and one past it that fails, with the
// path of the problem. Cases marked `crossField` compare fields, which JSON Schema cannot.

type Json = Record<string, any>;

export interface RuleCase {
  name: string;
  manifest: unknown;
  /** The problem paths expected, in any order; empty when the manifest is valid. */
  paths: string[];
  crossField?: boolean;
}

export const chars = (count: number, char = 'a') => char.repeat(count);

export const app = (id = 'web', extra: Json = {}): Json => ({ id, name: 'Web', path: '/', device: 'laptop', ...extra });
export const step = (id = 'intro', extra: Json = {}): Json => ({ id, title: 'Intro', say: 'Hello', app: 'web', ...extra });
export const scenario = (id = 'empty', extra: Json = {}): Json => ({ id, label: 'Empty', call: 'POST /seed', ...extra });
const apps = (count: number) => Array.from({ length: count }, (_, i) => app(`app-${i}`));
const steps = (count: number) => Array.from({ length: count }, (_, i) => step(`step-${i}`));

export const containerBase = (): Json => ({
  kind: 'container',
  name: 'Demo',
  apps: [app()],
  run: { start: ['node', 'server.js'] },
});
export const staticBase = (): Json => ({ kind: 'static', name: 'Demo', apps: [app()], output: 'dist' });

const cases: RuleCase[] = [];

/** A case built by editing a fresh base manifest; no paths means it must pass. */
function add(name: string, base: () => Json, edit: (m: Json) => void, ...paths: string[]): void {
  const manifest = base();
  edit(manifest);
  cases.push({ name, manifest, paths });
}
const C = containerBase;
const S = staticBase;
const onStep = (edit: (s: Json) => void) => (m: Json) => {
  m.story = [step()];
  edit(m.story[0]);
};
const onScenario = (edit: (s: Json) => void) => (m: Json) => {
  m.controls = { scenarios: [scenario()] };
  edit(m.controls.scenarios[0]);
};

// The manifest and its kind.
add('container base passes', C, () => {});
add('static base passes', S, () => {});
cases.push({ name: 'an array is not a manifest', manifest: [], paths: [''] });
cases.push({ name: 'null is not a manifest', manifest: null, paths: [''] });
cases.push({ name: 'a string is not a manifest', manifest: 'pitch', paths: [''] });
add('kind is required', C, (m) => delete m.kind, 'kind');
add('kind must be container or static', C, (m) => (m.kind = 'docker'), 'kind');
add('unknown top-level field (container)', C, (m) => (m.version = 2), 'version');
add('unknown top-level field (static)', S, (m) => (m.version = 2), 'version');
add('$schema may be a string', C, (m) => (m.$schema = './schema.json'));
add('$schema must be a string', S, (m) => (m.$schema = 1), '$schema');

// name: 1-80.
add('name is required', C, (m) => delete m.name, 'name');
add('name of 0 characters fails', C, (m) => (m.name = ''), 'name');
add('name of 1 character passes', C, (m) => (m.name = 'x'));
add('name of 80 characters passes', S, (m) => (m.name = chars(80)));
add('name of 81 characters fails', S, (m) => (m.name = chars(81)), 'name');
add('name must be a string', C, (m) => (m.name = 7), 'name');

// apps: 1-12.
add('apps is required', S, (m) => delete m.apps, 'apps');
add('apps must be an array', S, (m) => (m.apps = app()), 'apps');
add('0 apps fail', C, (m) => (m.apps = []), 'apps');
add('12 apps pass', C, (m) => (m.apps = apps(12)));
add('13 apps fail', C, (m) => (m.apps = apps(13)), 'apps');

// App fields.
add('app id of 1 character passes', C, (m) => (m.apps = [app('a')]));
add('app id of 40 characters passes', C, (m) => (m.apps = [app(chars(40))]));
add('app id of 41 characters fails', C, (m) => (m.apps = [app(chars(41))]), 'apps[0].id');
add('app id with digits and hyphens passes', C, (m) => (m.apps = [app('web-2')]));
add('app id with a capital fails', C, (m) => (m.apps = [app('Web')]), 'apps[0].id');
add('app id starting with a digit fails', C, (m) => (m.apps = [app('2web')]), 'apps[0].id');
add('app id starting with a hyphen fails', C, (m) => (m.apps = [app('-web')]), 'apps[0].id');
add('app id with an underscore fails', C, (m) => (m.apps = [app('we_b')]), 'apps[0].id');
add('app id empty fails', C, (m) => (m.apps = [app('')]), 'apps[0].id');
add('app id is required', C, (m) => delete m.apps[0].id, 'apps[0].id');
add('app name of 0 characters fails', C, (m) => (m.apps[0].name = ''), 'apps[0].name');
add('app name of 60 characters passes', C, (m) => (m.apps[0].name = chars(60)));
add('app name of 61 characters fails', C, (m) => (m.apps[0].name = chars(61)), 'apps[0].name');
add('app name is required', C, (m) => delete m.apps[0].name, 'apps[0].name');
add('app path / passes', C, (m) => (m.apps[0].path = '/'));
add('app path with query and fragment passes', C, (m) => (m.apps[0].path = '/a/b/?c=1#d'));
add('app path without a leading / fails', C, (m) => (m.apps[0].path = 'web'), 'apps[0].path');
add('app path starting // fails', C, (m) => (m.apps[0].path = '//evil.test'), 'apps[0].path');
add('app path starting /\\ fails', C, (m) => (m.apps[0].path = '/\\evil.test'), 'apps[0].path');
add('app path with a space fails', C, (m) => (m.apps[0].path = '/a b'), 'apps[0].path');
add('app path with a tab fails', C, (m) => (m.apps[0].path = '/a\tb'), 'apps[0].path');
add('app path with a backslash fails', C, (m) => (m.apps[0].path = '/a\\b'), 'apps[0].path');
add('app path empty fails', C, (m) => (m.apps[0].path = ''), 'apps[0].path');
for (const device of ['phone', 'tablet', 'laptop', 'screen', 'none']) {
  add(`app device ${device} passes`, C, (m) => (m.apps[0].device = device));
}
add('app device watch fails', C, (m) => (m.apps[0].device = 'watch'), 'apps[0].device');
add('app device is required', C, (m) => delete m.apps[0].device, 'apps[0].device');
add('app default true passes', C, (m) => (m.apps[0].default = true));
add('app default false passes', C, (m) => (m.apps[0].default = false));
add('app default must be a boolean', C, (m) => (m.apps[0].default = 'yes'), 'apps[0].default');
add('unknown app field fails', C, (m) => (m.apps[0].color = 'red'), 'apps[0].color');

// pages: at most 30, each .md or .html.
add('no pages passes', C, (m) => (m.pages = []));
add('.md and .html pages pass', C, (m) => (m.pages = ['README.md', 'docs/guide.html']));
add('30 pages pass', S, (m) => (m.pages = Array.from({ length: 30 }, (_, i) => `p${i}.md`)));
add('31 pages fail', S, (m) => (m.pages = Array.from({ length: 31 }, (_, i) => `p${i}.md`)), 'pages');
add('a .txt page fails', C, (m) => (m.pages = ['a.md', 'notes.txt']), 'pages[1]');
add('an upper-case .MD page fails', C, (m) => (m.pages = ['A.MD']), 'pages[0]');
add('a page named md fails', C, (m) => (m.pages = ['md']), 'pages[0]');
add('a page ending .md.bak fails', C, (m) => (m.pages = ['a.md.bak']), 'pages[0]');
add('a page must be a string', C, (m) => (m.pages = [5]), 'pages[0]');

// story: 1-20 steps.
add('an empty story fails', C, (m) => (m.story = []), 'story');
add('1 step passes', S, (m) => (m.story = steps(1)));
add('20 steps pass', S, (m) => (m.story = steps(20)));
add('21 steps fail', S, (m) => (m.story = steps(21)), 'story');

// Step fields.
add('step id of 40 characters passes', C, onStep((s) => (s.id = chars(40))));
add('step id of 41 characters fails', C, onStep((s) => (s.id = chars(41))), 'story[0].id');
add('step id with a capital fails', C, onStep((s) => (s.id = 'Intro')), 'story[0].id');
add('step id is required', C, onStep((s) => delete s.id), 'story[0].id');
add('step title of 0 characters fails', C, onStep((s) => (s.title = '')), 'story[0].title');
add('step title of 60 characters passes', C, onStep((s) => (s.title = chars(60))));
add('step title of 61 characters fails', C, onStep((s) => (s.title = chars(61))), 'story[0].title');
add('step title is required', C, onStep((s) => delete s.title), 'story[0].title');
add('step say of 0 characters fails', C, onStep((s) => (s.say = '')), 'story[0].say');
add('step say of 300 characters passes', S, onStep((s) => (s.say = chars(300))));
add('step say of 301 characters fails', S, onStep((s) => (s.say = chars(301))), 'story[0].say');
add('step app is required', C, onStep((s) => delete s.app), 'story[0].app');
add('step app must be a string', C, onStep((s) => (s.app = 1)), 'story[0].app');
add('step path of 500 characters passes', C, onStep((s) => (s.path = `/${chars(499)}`)));
add('step path of 501 characters fails', C, onStep((s) => (s.path = `/${chars(500)}`)), 'story[0].path');
add('step path starting // fails', S, onStep((s) => (s.path = '//x')), 'story[0].path');
add('step path without / fails', S, onStep((s) => (s.path = 'x.html')), 'story[0].path');
add('step device tablet passes', C, onStep((s) => (s.device = 'tablet')));
add('step device tv fails', C, onStep((s) => (s.device = 'tv')), 'story[0].device');
add('step point of 0 characters fails', C, onStep((s) => (s.point = '')), 'story[0].point');
add('step point of 200 characters passes', C, onStep((s) => (s.point = chars(200))));
add('step point of 201 characters fails', C, onStep((s) => (s.point = chars(201))), 'story[0].point');
add('unknown step field fails', C, onStep((s) => (s.note = 'x')), 'story[0].note');

// A step's run: 1-8 calls, each a call string or {call, body?}; container only (rule 7).
add('step run of 1 call passes', C, onStep((s) => (s.run = ['GET /'])));
add('step run of 8 calls passes', C, onStep((s) => (s.run = Array(8).fill('POST /tick'))));
add('step run of 9 calls fails', C, onStep((s) => (s.run = Array(9).fill('POST /tick'))), 'story[0].run');
add('step run of 0 calls fails', C, onStep((s) => (s.run = [])), 'story[0].run');
add('step run call in lower case fails', C, onStep((s) => (s.run = ['get /'])), 'story[0].run[0]');
add('step run object with a body passes', C, onStep((s) => (s.run = [{ call: 'POST /a', body: { x: [1, { y: null }] } }])));
add('step run object without a body passes', C, onStep((s) => (s.run = [{ call: 'DELETE /a' }])));
add('step run object with a bad call fails', C, onStep((s) => (s.run = [{ call: 'POST a' }])), 'story[0].run[0].call');
add('step run object without a call fails', C, onStep((s) => (s.run = [{ body: {} }])), 'story[0].run[0].call');
add('step run body must be an object', C, onStep((s) => (s.run = [{ call: 'POST /a', body: [1] }])), 'story[0].run[0].body');
add('step run object with an unknown field fails', C, onStep((s) => (s.run = [{ call: 'GET /', wait: 1 }])), 'story[0].run[0].wait');
add('step run item must be a string or an object', C, onStep((s) => (s.run = [5])), 'story[0].run[0]');
add('step run on a static build fails (rule 7)', S, onStep((s) => (s.run = ['GET /'])), 'story[0].run');

// A call: METHOD, one space, a path starting / with no whitespace.
for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
  add(`call with ${method} passes`, C, (m) => (m.controls = { reset: `${method} /reset` }));
}
add('call with only / passes', C, (m) => (m.controls = { reset: 'POST /' }));
add('call with a query passes', C, (m) => (m.controls = { reset: 'POST /reset?all=1' }));
add('call with HEAD fails', C, (m) => (m.controls = { reset: 'HEAD /' }), 'controls.reset');
add('call in lower case fails', C, (m) => (m.controls = { reset: 'post /' }), 'controls.reset');
add('call with two spaces fails', C, (m) => (m.controls = { reset: 'POST  /reset' }), 'controls.reset');
add('call with a space in the path fails', C, (m) => (m.controls = { reset: 'POST /re set' }), 'controls.reset');
add('call without a path fails', C, (m) => (m.controls = { reset: 'POST' }), 'controls.reset');
add('call with a relative path fails', C, (m) => (m.controls = { reset: 'POST reset' }), 'controls.reset');
add('call with a leading space fails', C, (m) => (m.controls = { reset: ' POST /' }), 'controls.reset');

// Controls: reset and scenarios only; at most 20 scenarios; container only (rule 4).
add('empty controls pass', C, (m) => (m.controls = {}));
add('unknown controls field fails', C, (m) => (m.controls = { timeout: 3 }), 'controls.timeout');
add('controls must be an object', C, (m) => (m.controls = 'reset'), 'controls');
add('20 scenarios pass', C, (m) => (m.controls = { scenarios: Array.from({ length: 20 }, (_, i) => scenario(`s${i}`)) }));
add('21 scenarios fail', C, (m) => (m.controls = { scenarios: Array.from({ length: 21 }, (_, i) => scenario(`s${i}`)) }), 'controls.scenarios');
add('scenario id with a capital fails', C, onScenario((s) => (s.id = 'Empty')), 'controls.scenarios[0].id');
add('scenario id of 41 characters fails', C, onScenario((s) => (s.id = chars(41))), 'controls.scenarios[0].id');
add('scenario label of 0 characters fails', C, onScenario((s) => (s.label = '')), 'controls.scenarios[0].label');
add('scenario label of 60 characters passes', C, onScenario((s) => (s.label = chars(60))));
add('scenario label of 61 characters fails', C, onScenario((s) => (s.label = chars(61))), 'controls.scenarios[0].label');
add('scenario label is required', C, onScenario((s) => delete s.label), 'controls.scenarios[0].label');
add('scenario description of 0 characters passes', C, onScenario((s) => (s.description = '')));
add('scenario description of 200 characters passes', C, onScenario((s) => (s.description = chars(200))));
add('scenario description of 201 characters fails', C, onScenario((s) => (s.description = chars(201))), 'controls.scenarios[0].description');
add('scenario call is required', C, onScenario((s) => delete s.call), 'controls.scenarios[0].call');
add('scenario call must be a call', C, onScenario((s) => (s.call = 'seed')), 'controls.scenarios[0].call');
add('scenario body object passes', C, onScenario((s) => (s.body = { rows: 3, names: ['a'], deep: { ok: true } })));
add('scenario body array fails', C, onScenario((s) => (s.body = [])), 'controls.scenarios[0].body');
add('scenario body string fails', C, onScenario((s) => (s.body = '{}')), 'controls.scenarios[0].body');
add('scenario body null fails', C, onScenario((s) => (s.body = null)), 'controls.scenarios[0].body');
add('unknown scenario field fails', C, onScenario((s) => (s.icon = 'x')), 'controls.scenarios[0].icon');
add('controls on a static build fail (rule 4)', S, (m) => (m.controls = {}), 'controls');

// health: container only; must start with /.
add('health / passes', C, (m) => (m.health = '/'));
add('health /status passes', C, (m) => (m.health = '/status?deep=1'));
add('health without / fails', C, (m) => (m.health = 'healthz'), 'health');
add('health empty fails', C, (m) => (m.health = ''), 'health');
add('health on a static build fails', S, (m) => (m.health = '/healthz'), 'health');

// run: container only; start 1-64 items of 1-1000 characters; env keys and values.
add('run must be an object', C, (m) => (m.run = ['node']), 'run');
add('run.start is required', C, (m) => (m.run = {}), 'run.start');
add('run.start of 0 items fails', C, (m) => (m.run.start = []), 'run.start');
add('run.start of 64 items passes', C, (m) => (m.run.start = Array(64).fill('x')));
add('run.start of 65 items fails', C, (m) => (m.run.start = Array(65).fill('x')), 'run.start');
add('run.start item of 0 characters fails', C, (m) => (m.run.start = ['node', '']), 'run.start[1]');
add('run.start item of 1000 characters passes', C, (m) => (m.run.start = [chars(1000)]));
add('run.start item of 1001 characters fails', C, (m) => (m.run.start = [chars(1001)]), 'run.start[0]');
add('run.env empty passes', C, (m) => (m.run.env = {}));
add('run.env keys of letters, digits and _ pass', C, (m) => (m.run.env = { MOCK_API: '1', _x: '', a9: 'b' }));
add('run.env key starting with a digit fails', C, (m) => (m.run.env = { '1A': 'x' }), 'run.env["1A"]');
add('run.env key with a hyphen fails', C, (m) => (m.run.env = { 'MY-KEY': 'x' }), 'run.env["MY-KEY"]');
add('run.env empty key fails', C, (m) => (m.run.env = { '': 'x' }), 'run.env[""]');
add('run.env value of 4000 characters passes', C, (m) => (m.run.env = { A: chars(4000) }));
add('run.env value of 4001 characters fails', C, (m) => (m.run.env = { A: chars(4001) }), 'run.env.A');
add('run.env value must be a string', C, (m) => (m.run.env = { A: 5 }), 'run.env.A');
add('unknown run field fails', C, (m) => (m.run.cwd = '/app'), 'run.cwd');
add('run on a static build fails', S, (m) => (m.run = { start: ['node'] }), 'run');

// output: static only, at least 1 character.
add('output is required on a static build', S, (m) => delete m.output, 'output');
add('output of 0 characters fails', S, (m) => (m.output = ''), 'output');
add('output of 1 character passes', S, (m) => (m.output = '.'));
add('output on a container build fails', C, (m) => (m.output = 'dist'), 'output');

// Cross-field rules 1-6 and the platform's need for run: not expressible in JSON Schema.
const cross = (name: string, base: () => Json, edit: (m: Json) => void, ...paths: string[]) => {
  add(name, base, edit, ...paths);
  cases[cases.length - 1].crossField = true;
};
cross('an app id declared twice fails (rule 1)', C, (m) => (m.apps = [app('web'), app('web')]), 'apps[1].id');
cross('the later declaration is the one at fault (rule 1)', S, (m) => (m.apps = [app('web'), app('docs'), app('web')]), 'apps[2].id');
cross('one default app passes (rule 2)', C, (m) => (m.apps = [app('a', { default: false }), app('web', { default: true })]));
cross('two default apps fail (rule 2)', C, (m) => (m.apps = [app('web', { default: true }), app('b', { default: true })]), 'apps[1].default');
cross(
  'three default apps fail twice (rule 2)',
  S,
  (m) => (m.apps = [app('web', { default: true }), app('b', { default: true }), app('c', { default: true })]),
  'apps[1].default',
  'apps[2].default',
);
cross('a scenario id declared twice fails (rule 3)', C, (m) => (m.controls = { scenarios: [scenario('a'), scenario('b'), scenario('a')] }), 'controls.scenarios[2].id');
cross('a step id declared twice fails (rule 5)', S, (m) => (m.story = [step('a'), step('a')]), 'story[1].id');
cross('a step naming an undeclared app fails (rule 6)', C, (m) => (m.story = [step('a', { app: 'docs' })]), 'story[0].app');
cross('a step naming a declared app passes (rule 6)', C, (m) => ((m.apps = [app('web'), app('docs')]), (m.story = [step('a', { app: 'docs' })])));
cross('a container build without run fails (platform)', C, (m) => delete m.run, 'run');

export const RULE_CASES: readonly RuleCase[] = cases;
