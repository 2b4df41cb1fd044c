import { useEffect, useRef } from 'react';
import { fontCss, radiusCss, type FontName, type RadiusName } from '@demo-rooms/contract';

// The room's chrome as services/room/shell draws it (bar with logo and name, tabs, a device frame,
// the tour's buttons), coloured by the draft through custom properties. They are set through the
// CSSOM: the page's policy forbids style attributes written in HTML, not style set by script.

export function RoomPreview({
  colours,
  radius,
  font,
  name,
  logo,
}: {
  colours: Record<string, string>;
  radius: RadiusName;
  font: FontName;
  name: string;
  logo: string | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    for (const [token, value] of Object.entries(colours)) el.style.setProperty(`--room-${token}`, value);
    el.style.setProperty('--room-radius', radiusCss[radius]?.small ?? '8px');
    el.style.setProperty('--room-radius-card', radiusCss[radius]?.card ?? '12px');
    el.style.setProperty('--room-font', fontCss[font] ?? 'system-ui');
  }, [colours, radius, font]);
  return (
    <figure className="room-preview" ref={ref} aria-label="Preview of a room with this theme">
      <div className="room-bar">
        {logo ? <img src={logo} alt="" height={24} /> : null}
        <span className="room-name">{name}</span>
        <div className="room-tabs" aria-hidden="true">
          <span className="room-tab selected">Overview</span>
          <span className="room-tab">Dashboard</span>
          <span className="room-tab">Settings</span>
        </div>
      </div>
      <div className="room-stage">
        <div className="room-frame">
          <div className="room-page">
            <p className="room-title">Your app runs here</p>
            <p className="room-muted">Muted text, as the room writes hints.</p>
            <span className="room-count">3</span>
          </div>
        </div>
        <div className="room-tour">
          <p className="room-muted">Step 2 of 4 · The dashboard</p>
          <div className="room-buttons">
            <span className="room-button accent" data-testid="preview-accent">
              What happens next
            </span>
            <span className="room-button">Comment</span>
          </div>
        </div>
      </div>
      <figcaption className="sr-only">A sketch of the room's bar, tabs, device frame and tour buttons in the draft colours.</figcaption>
    </figure>
  );
}
