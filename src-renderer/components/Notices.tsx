import { useState } from 'react';
import type { Notice } from '../../shared/api';
import { useApi } from '../api/ApiContext';
import { useQuery } from '../api/useQuery';

/**
 * The app's notices (files a launch or the menu could not open, …) as alerts above every view,
 * each with its problems as text and a Dismiss button that forgets it in the app too. The desktop
 * shell reloads the page when it adds one, so reading them once per page load is enough.
 */
export function Notices() {
  const api = useApi();
  const notices = useQuery('notices', (client) => client.notices({}));
  const [dismissed, setDismissed] = useState<ReadonlySet<number>>(new Set());
  if (notices.status !== 'ready') return null;
  const shown = notices.data.filter((notice) => !dismissed.has(notice.id));
  if (shown.length === 0) return null;

  const dismiss = (notice: Notice) => {
    setDismissed((previous) => new Set([...previous, notice.id]));
    // The page already hides it; a failure only means it shows again after a reload.
    api.dismissNotice({ id: notice.id }).catch(() => undefined);
  };
  return (
    <div className="notices">
      {shown.map((notice) => (
        <div key={notice.id} className="banner banner-error notice" role="alert">
          <div className="notice-text">
            <strong>{notice.title}</strong>
            {notice.lines.map((line, index) => (
              <div key={index} className="notice-line">
                {line}
              </div>
            ))}
          </div>
          <button type="button" className="link-button" onClick={() => dismiss(notice)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}
