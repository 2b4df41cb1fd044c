import { convert } from 'html-to-text';
import mjml2html from 'mjml';
import { escapeHtml } from '../../services/core/rules/escape-html.js';

// Alert mails (instant and digest) from ONE template source, in MJML (the maintained email
// templating language), with the plain text derived from the same HTML by html-to-text. MJML is
// compiled once per process, with placeholders the values then fill in escaped: a mail costs a
// string replace and html-to-text, never a second MJML compile.

const source = `<mjml>
  <mj-head>
    <mj-title>{{title}}</mj-title>
    <mj-attributes><mj-all font-family="system-ui, -apple-system, Segoe UI, sans-serif" /></mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f7">
    <mj-section background-color="#ffffff" padding="24px">
      <mj-column>
        <mj-text font-size="18px" font-weight="600" color="#1d2330">{{heading}}</mj-text>
        <mj-text font-size="15px" line-height="1.5" color="#1d2330">{{items}}</mj-text>
        <mj-button href="{{button-href}}" background-color="#2f6fde" align="left">{{button}}</mj-button>
        <mj-text font-size="12px" color="#6b7280">{{footer}}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

let compiled: Promise<string> | null = null;
const template = () =>
  (compiled ??= Promise.resolve(mjml2html(source, { validationLevel: 'strict' })).then((r) => {
    if (r.errors.length) throw new Error(`alert mail template: ${r.errors.map((e) => e.formattedMessage).join('; ')}`);
    return r.html;
  }));

export interface AlertMailContent {
  subject: string;
  heading: string;
  /** One line per alert, each with the place in the web app (an absolute URL). */
  items: { text: string; href: string }[];
  button: { text: string; href: string };
  footer: string;
}

/** The mail's HTML and text. Every value is escaped; only the template's own markup is HTML. */
export async function renderAlertMail(c: AlertMailContent): Promise<{ subject: string; html: string; text: string }> {
  const items = c.items.map((i) => `<p><a href="${escapeHtml(i.href)}">${escapeHtml(i.text)}</a></p>`).join('');
  const values: Record<string, string> = {
    title: escapeHtml(c.subject),
    heading: escapeHtml(c.heading),
    items,
    'button-href': escapeHtml(c.button.href),
    button: escapeHtml(c.button.text),
    footer: escapeHtml(c.footer),
  };
  const html = (await template()).replace(/\{\{([a-z-]+)\}\}/g, (all, key: string) => values[key] ?? all);
  const text = convert(html, { wordwrap: 100, selectors: [{ selector: 'a', options: { hideLinkHrefIfSameAsText: true } }] });
  return { subject: c.subject, html, text };
}
