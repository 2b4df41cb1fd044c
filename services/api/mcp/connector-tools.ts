import { type Operation, LINK_DEFAULT_DAYS } from '@demo-rooms/contract';

// Which operations of the contract the AI-assistant connector offers, and under which name
// (issues 20 and 29). Every operation of the route table is named here once: as an action of a
// tool (with what an assistant should know before calling it), or left out with the reason. A new
// operation needs one line; the test beside this file fails until it has one.
//
// The names are the `pitch` command line's (docs/connector.md maps them): a tool is a command
// (`links`), an action its subcommand (`create`), so `pitch links create` is the `links` tool
// with `action: "create"`. Where the command line has no command, the tool is named after the web
// app's area or tab (`activity`, `room`, `pipeline`, `brand`, `card`, `community`).

/** The connector's tools: one per command or area, each holding that area's actions. */
export const connectorToolNames = [
  'whoami',
  'validate',
  'workspace',
  'projects',
  'builds',
  'rollback',
  'logs',
  'links',
  'activity',
  'analytics',
  'room',
  'pipeline',
  'brand',
  'card',
  'community',
] as const;
export type ToolName = (typeof connectorToolNames)[number];

/** What each tool is about, and where the same thing lives in the command line and the web app. */
export const toolAreas: Record<ToolName, { about: string; cli?: string; web: string }> = {
  whoami: { about: 'Who this connection acts for, and in which workspace. Start here.', cli: 'pitch whoami', web: 'Account' },
  validate: {
    about:
      "Checks a pitch.json document (the build manifest) as a deploy would, before any bytes move: its problems, each with the field's path, and advisory notes. Changes nothing.",
    cli: 'pitch validate',
    web: '—',
  },
  workspace: {
    about: 'Your workspaces (your own and your teams), the active one, its plan, members, invitations and container usage.',
    cli: 'pitch workspace',
    web: 'Team, Usage',
  },
  projects: { about: "The active workspace's projects: each has one room.", cli: 'pitch projects', web: 'Projects' },
  builds: {
    about: "A project's builds and who made which live. Deploys carry bytes: use `pitch deploy`.",
    cli: 'pitch builds',
    web: 'Projects › Builds',
  },
  rollback: { about: 'Makes a build of the project its live build.', cli: 'pitch rollback', web: 'Projects › Builds (Make live)' },
  logs: {
    about: "The latest times a copy of the project's container demo exited on its own, with its exit code and last output.",
    cli: 'pitch logs',
    web: 'Projects › Room (Exits)',
  },
  links: {
    about: "A project's private links, one per named viewer. ls never shows addresses; reveal does.",
    cli: 'pitch links',
    web: 'Projects › Links',
  },
  activity: {
    about: "What viewers did in a project's room: visits, answers, comments and their replies, viewers turned away.",
    web: 'Projects › Activity',
  },
  analytics: { about: "Views and viewers over UTC days (both ends included, at most 366), and one link's journey.", web: 'Analytics' },
  room: {
    about: "The project's room: pages, app order, story tour, pause, access, What happens next, its history, a preview address.",
    web: 'Projects › Room',
  },
  pipeline: { about: 'Every link as a deal card: stage, outcome, follow-up, notes.', web: 'Pipeline' },
  brand: { about: "The workspace's brand and the room's theme; every change is checked for contrast.", web: 'Brand' },
  card: { about: "A project's community card: its words, cover, listing and the listing checks.", web: 'Projects › Community card' },
  community: { about: 'Your community profile, notices, and how your projects are arranged in groups.', web: 'Community' },
};

/** An operation offered as `action` of `tool`; a tool with one operation has no action (null). */
export type ToolChoice = { tool: ToolName; action: string | null; hint?: string } | { leftOut: string };

const tool = (name: ToolName, action: string | null, hint?: string): ToolChoice => ({ tool: name, action, ...(hint ? { hint } : {}) });
const leftOut = (why: string): ToolChoice => ({ leftOut: why });

const signIn = leftOut('sign-in belongs to a person in a browser or terminal, not to an assistant');
const bytes = leftOut('its body or reply is raw bytes (an upload or an image), not JSON');
const ownSecurity = leftOut("a person's own sign-ins and sessions are theirs to manage, never an assistant's");
const document = leftOut('served as an MCP resource instead');
// Where the platform sends events and the secret that signs them are a person's to choose (issue 34).
const webhooks = leftOut(
  "webhook endpoints send the workspace's events to outside addresses under a signing secret: a person sets them in the web app or the API",
);

export const connectorTools: Record<Operation, ToolChoice> = {
  healthz: leftOut('liveness of the platform, not a workspace action'),
  openapi: document,
  manifestSchema: document,

  emailSignIn: signIn,
  emailCheck: signIn,
  emailVerify: signIn,
  deviceStart: signIn,
  deviceApprove: signIn,
  deviceToken: signIn,
  logout: signIn,
  passkeySignInOptions: signIn,
  passkeySignIn: signIn,
  providerStart: signIn,
  providerCallback: signIn,
  passkeys: ownSecurity,
  passkeyRegisterOptions: ownSecurity,
  registerPasskey: ownSecurity,
  removePasskey: ownSecurity,
  renamePasskey: ownSecurity,

  whoami: tool('whoami', null),
  setName: ownSecurity,
  uploadPhoto: bytes,
  removePhoto: ownSecurity,
  deletable: ownSecurity,
  deleteAccount: ownSecurity,
  signIns: ownSecurity,
  disconnect: ownSecurity,
  sessions: ownSecurity,
  revokeSession: ownSecurity,
  signOutEverywhere: ownSecurity,
  createConnectorToken: leftOut('a connection never mints tokens; a person issues them'),
  myPreferences: leftOut("the web app's own display preferences"),
  welcomeSeen: leftOut("the web app's own display preferences"),
  foldFeedbackTab: leftOut("the web app's own display preferences"),
  listAlerts: leftOut("a person's own alerts, read in the web app and by mail"),
  markAlertsRead: leftOut("a person's own alerts, read in the web app and by mail"),
  alertSettings: leftOut("a person's own alert mail settings (Account)"),
  setAlertSettings: leftOut("a person's own alert mail settings (Account)"),
  sendProductFeedback: leftOut('feedback about the platform comes from a person'),

  listWorkspaces: tool('workspace', 'ls', 'The active one is what every other tool acts on.'),
  getBilling: tool('workspace', 'billing'),
  createTeam: leftOut('making teams and changing who is in them is for people, not assistants'),
  activateWorkspace: tool('workspace', 'use', 'Switches what this connection acts on from the next call.'),
  renameWorkspace: leftOut('making teams and changing who is in them is for people, not assistants'),
  listMembers: tool('workspace', 'members'),
  setMemberRole: leftOut('making teams and changing who is in them is for people, not assistants'),
  removeMember: leftOut('making teams and changing who is in them is for people, not assistants'),
  leaveTeam: leftOut('making teams and changing who is in them is for people, not assistants'),
  listInvitations: tool('workspace', 'invitations'),
  createInvitation: leftOut('an invitation address is a key to a team: handed on by a person'),
  revokeInvitation: leftOut('making teams and changing who is in them is for people, not assistants'),
  viewInvitation: leftOut('invitations are opened by the invited person'),
  acceptInvitation: leftOut('invitations are accepted by the invited person'),
  deleteTeam: leftOut('deleting a team is for its owner, in person'),
  workspaceLogo: bytes,
  workspacePeople: tool('workspace', 'people'),
  personPhoto: bytes,
  containerUsage: tool('workspace', 'usage', 'Demo container runs, hours and cold starts this UTC month.'),
  usageStatement: tool('workspace', 'statement', 'month is YYYY-MM (UTC). Lines are capped at 1,000; the CSV export has them all.'),
  usageStatementCsv: leftOut('a CSV download of the statement, for spreadsheets; `workspace statement` gives the same numbers as JSON'),

  listProjects: tool('projects', 'ls', 'Each project has one room; ids here feed every project action.'),
  createProject: tool('projects', 'create'),
  getProject: tool('projects', 'show'),
  renameProject: tool('projects', 'rename'),
  deleteProject: leftOut('deleting a project stops its links for good: for a person, with the slug typed'),
  listExits: tool('logs', null, 'Why container copies of the demo stopped on their own, with their last output.'),
  startUpload: leftOut('deploys carry bytes: use the pitch command-line tool'),
  uploadPut: bytes,
  completeUpload: leftOut('deploys carry bytes: use the pitch command-line tool'),
  createBuild: leftOut('deploys carry bytes: use the pitch command-line tool'),
  listBuilds: tool('builds', 'ls'),
  buildHistory: tool('builds', 'history', 'Who made which build live and when, rollbacks included.'),
  makeLive: tool('rollback', null, 'Makes the build live: a rollback when it is older than the live one.'),

  createLink: tool(
    'links',
    'create',
    `Expires after ${LINK_DEFAULT_DAYS} days unless expiresInDays says otherwise (null: never). The reply's url is the address to send (full connections only).`,
  ),
  listLinks: tool('links', 'ls'),
  updateLink: tool('links', 'update', "The viewer's company, passed to a build that personalises its copies; null clears it."),
  revokeLink: tool('links', 'revoke'),
  revealLink: tool('links', 'reveal'),
  reissueLink: tool('links', 'reissue', 'Full connections only.'),
  listVisits: tool('activity', 'visits'),
  listResponses: tool('activity', 'responses', "Viewers' answers to What happens next."),
  listComments: tool('activity', 'comments'),
  journey: tool('analytics', 'journey', "One link's sessions, each a timeline of what the viewer did."),
  projectAnalytics: tool('analytics', 'project', 'Days are UTC dates YYYY-MM-DD.'),
  workspaceAnalytics: tool('analytics', 'workspace', 'Days are UTC dates YYYY-MM-DD.'),
  projectBounces: tool('activity', 'bounces', 'Viewers turned away (room full, paused, not taking visits).'),
  listFeedback: tool('activity', 'feedback'),
  getFeedback: tool('activity', 'comment'),
  resolveComment: tool('activity', 'resolve'),
  replyToComment: tool('activity', 'reply', 'The viewer sees it on their next visit.'),
  getScreenshot: bytes,
  removeScreenshot: tool('activity', 'remove-screenshot'),

  addPage: tool('room', 'add-page'),
  getRoomSetup: tool('room', 'show'),
  orderApps: tool('room', 'order-apps'),
  orderPages: tool('room', 'order-pages'),
  removePage: tool('room', 'remove-page'),
  getTour: tool('room', 'tour'),
  projectHistory: tool('room', 'history', 'Pauses, resumes, link copies and reissues of the room.'),
  getRoomPause: tool('room', 'pause-status'),
  pauseRoom: tool('room', 'pause'),
  resumeRoom: tool('room', 'resume'),
  getAccess: tool('room', 'access'),
  setAccess: tool('room', 'set-access'),
  previewPass: tool('room', 'preview', 'Full connections only.'),
  getNextSteps: tool('room', 'next-steps'),
  setNextSteps: tool('room', 'set-next-steps'),

  pipeline: tool('pipeline', 'ls'),
  board: tool('pipeline', 'board', "Every link's deal card: stage, outcome, follow-up, signals, forwards."),
  projectBoard: tool('pipeline', 'project-board'),
  setStage: tool('pipeline', 'stage'),
  setOutcome: tool('pipeline', 'outcome'),
  followUp: tool('pipeline', 'follow-up'),
  listNotes: tool('pipeline', 'notes'),
  addNote: tool('pipeline', 'add-note'),
  removeNote: tool('pipeline', 'remove-note'),

  getBrand: tool('brand', 'show'),
  setBrand: tool('brand', 'set'),
  uploadLogo: bytes,
  removeLogo: tool('brand', 'remove-logo'),
  getTheme: tool('brand', 'theme'),
  setTheme: tool('brand', 'set-theme'),
  resetTheme: tool('brand', 'reset-theme'),
  checkTheme: tool('brand', 'check-theme'),

  getCard: tool('card', 'show'),
  saveCard: tool('card', 'save'),
  uploadCover: bytes,
  removeCover: tool('card', 'remove-cover'),
  checkBuildCover: tool('card', 'check-cover'),
  coverFromBuild: tool('card', 'cover-from-build'),
  listProject: tool('card', 'list'),
  rehearseListing: tool('card', 'rehearse'),
  appealListing: leftOut('an appeal is a person speaking for their own work'),
  scanCard: tool('card', 'scan'),
  unlistProject: tool('card', 'unlist'),
  suggestWording: tool('card', 'suggest'),
  listNotices: tool('community', 'notices'),
  readNotices: tool('community', 'read-notices'),
  communityPass: tool('community', 'pass', 'Full connections only.'),
  getProfile: tool('community', 'profile'),
  setProfile: tool('community', 'set-profile'),
  getArrangement: tool('community', 'arrangement'),
  arrangeProjects: tool('community', 'arrange'),
  createGroup: tool('community', 'group-create'),
  renameGroup: tool('community', 'group-rename'),
  deleteGroup: tool('community', 'group-delete'),
  reportProject: leftOut('a report is a person speaking for themselves'),
  communityListings: leftOut("the community's public pages, open to anyone without the connector"),
  communityProfile: leftOut("the community's public pages, open to anyone without the connector"),
  communityCover: bytes,
  createWebhookEndpoint: webhooks,
  listWebhookEndpoints: webhooks,
  updateWebhookEndpoint: webhooks,
  deleteWebhookEndpoint: webhooks,
  rotateWebhookSecret: webhooks,
  listWebhookDeliveries: webhooks,
  resendWebhookDelivery: webhooks,
  testWebhookEndpoint: webhooks,
};
