import type { KnownViewer } from '../personal.js';

// Personalised copies for a static build (issue 34, part 3): a page of a build whose manifest
// says `personalise: true` may load `/__pp/viewer.js` from its own origin. The room answers with
// this small script, made for the viewer whose cookie asks: it sets `window.demoViewer`
// ({ name, company }, each a string or null), writes them into every element with a
// `data-demo-viewer="name"` or `data-demo-viewer="company"` attribute (as text, never HTML),
// and fires a `demo-viewer` event on window (detail: the same object) once the document is read.

/** Where a static build's page loads the script (on its own content origin). */
export const VIEWER_SCRIPT_PATH = '/__pp/viewer.js';

/** JSON fit for a script body: `<` escaped, so no `</script>` or `<!--` can end or bend it. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The script for one viewer. */
export function viewerScript(viewer: KnownViewer): string {
  const data = scriptJson({ name: viewer.viewerName ?? null, company: viewer.viewerCompany ?? null });
  return `(function () {
  var viewer = Object.freeze(${data});
  window.demoViewer = viewer;
  function show() {
    var els = document.querySelectorAll('[data-demo-viewer]');
    for (var i = 0; i < els.length; i++) {
      var which = els[i].getAttribute('data-demo-viewer');
      if ((which === 'name' || which === 'company') && viewer[which]) els[i].textContent = viewer[which];
    }
    window.dispatchEvent(new CustomEvent('demo-viewer', { detail: viewer }));
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', show);
  else show();
})();
`;
}
