// What the api writes into the page (services/api/web-app): which sign-in providers are set up,
// and whether mail goes to a folder instead of out (no SMTP_URL).
export interface Settings {
  providers: ('github' | 'google')[];
  outbox: boolean;
}

export const settings: Settings = (() => {
  const raw = document.querySelector<HTMLMetaElement>('meta[name="pp-config"]')?.content;
  try {
    return { providers: [], outbox: false, ...(raw ? JSON.parse(raw) : {}) };
  } catch {
    return { providers: [], outbox: false };
  }
})();
