/**
 * The page of an HTML report (`loopscope export --html`): the app's own views over the answers
 * recorded in the page (reportTransport.ts). Built into one script (report.vite.config.ts) that
 * the export inlines with its stylesheet and data, so the file needs nothing else.
 */
import '../zodConfig';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApiClient, errorMessage } from '../api/client';
import { App } from '../App';
import { runDiffsOnPage } from '../diff/backgroundDiff';
import { formatRoute, routes } from '../navigation/route';
import { readEmbeddedSnapshot, snapshotTransport } from './reportTransport';
import '../styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('the report has no #root element');

runDiffsOnPage();
readEmbeddedSnapshot().then(
  (snapshot) => {
    // A report opens on what it was exported for: its run, else the trace's runs.
    if (window.location.hash === '') {
      const start = snapshot.run === null ? routes.trace(snapshot.traceId) : routes.run(snapshot.traceId, snapshot.run.runPk);
      window.history.replaceState(null, '', formatRoute(start));
    }
    createRoot(container).render(
      <StrictMode>
        <App api={createApiClient(snapshotTransport(snapshot))} />
      </StrictMode>,
    );
  },
  (error: unknown) => {
    container.textContent = `This Loopscope report cannot be read: ${errorMessage(error)}`;
  },
);
