import { createIsbotFromList, list } from 'isbot';

// Link-preview bots and mail scanners fetch a link the moment it is pasted into a chat or lands
// in an inbox. Such a fetch must not count as the viewer's open, take a seat, start a visit, move
// the link's stage, or spend a one-time preview pass. Known bots are told apart by their user
// agent: isbot's maintained list, plus the Office and Outlook fetchers it leaves out (they send a
// browser-like agent naming Office). A scanner that passes for a browser still cannot open a
// visit without running the shell (issue 15 takes that further).
//
// A headless browser is not a bot here: it runs the page like any browser, so the shell's rules
// hold for it (no visit until its script arrives), and it is how a builder's own checks, an
// assistant's browser or a tester drive the room. isbot lists it ('headless'); that entry is left
// out, and a headless agent that names a bot (a crawler's) is still one by that name.

const officeFetchers = [
  'microsoft office',
  'ms-office',
  'msoffice',
  'microsoft outlook',
  'outlook-ios',
  'outlook-android',
  'safelinks',
  'bingpreview',
  'skypeuripreview',
];

const browsersWithoutAWindow = new Set(['headless']);

const isPreviewBot = createIsbotFromList([
  ...list.filter((pattern) => !browsersWithoutAWindow.has(pattern)),
  ...officeFetchers.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
]);

/** Whether this user agent is a bot, a link-preview fetcher or a mail scanner; no agent at all is one too. */
export const isLinkPreviewBot = (userAgent: string | undefined) => !userAgent || isPreviewBot(userAgent);
