/**
 * What the UI benchmark installs in the page before any of the app's scripts run (an init script,
 * not subject to the page's CSP): `window.__bench`, which records the app's `loopscope:*`
 * performance marks (with the run rows on screen when each was seen), the page's long tasks,
 * keydown times and the timeline position slider's input events, and offers the in-page
 * measurements scripts/bench-ui.ts asks for.
 *
 * Plain JavaScript in a string: tsx would wrap a function's inner arrows in a helper the page
 * lacks, and the Node tsconfig has no DOM types.
 *
 * Every measured interval is taken in the page, on its own clock (performance.now()). A
 * measurement waits for the app's mark, and watches the DOM for the state the mark stands for as
 * a cross-check: a mark that comes before the DOM shows that state does not count yet. No mark
 * within the time allowed is a timeout (`source: 'timeout'`).
 */
export const pageProbe = String.raw`
(() => {
  if (window.__bench) return;
  /** How long after the DOM state a measurement still waits for the app's mark (which can lag it when a long task follows the render). */
  const GRACE_MS = 3000;
  const marks = [];
  const longTasks = [];
  const waiters = new Set();
  let lastKeyAt = null;
  const notify = () => { for (const probe of Array.from(waiters)) probe(false); };

  const runRows = () => document.querySelectorAll('[data-testid=run-row]').length;
  let firstRowsSeen = false;
  /** The runs table's first appearance: the first runs-shown mark and, as a cross-check, the frame that first painted run rows (each with the API's progress right after). */
  const progressive = { firstRowsAt: null, firstRowsProgress: null, mark: null, markProgress: null };
  const fetchProgress = () => {
    const sent = performance.now();
    return fetch('api/listTraces', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      .then((response) => response.json())
      .then((traces) => ({ sent: sent, received: performance.now(), traces: traces }))
      .catch((error) => ({ sent: sent, received: performance.now(), error: String(error) }));
  };

  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (!entry.name.startsWith('loopscope:')) continue;
        const record = { name: entry.name, time: entry.startTime, seenAt: performance.now(), runRows: runRows(), detail: entry.detail === undefined ? null : entry.detail };
        marks.push(record);
        if (entry.name === 'loopscope:runs-shown' && progressive.mark === null) {
          progressive.mark = record;
          fetchProgress().then((answer) => { progressive.markProgress = answer; });
        }
      }
      notify();
    }).observe({ type: 'mark', buffered: true });
  } catch (error) { /* no mark observer: every measurement times out */ }
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch (error) { /* no longtask support */ }
  new MutationObserver(() => {
    if (!firstRowsSeen && document.querySelector('[data-testid=run-row]')) {
      // Progress asked at once; the time is that of the frame that paints the rows.
      firstRowsSeen = true;
      fetchProgress().then((answer) => { progressive.firstRowsProgress = answer; });
      requestAnimationFrame(() => { progressive.firstRowsAt = performance.now(); });
    }
    if (waiters.size > 0) notify();
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy', 'data-selected', 'data-state', 'data-query'] });
  window.addEventListener('keydown', () => { lastKeyAt = performance.now(); }, true);
  // The timeline's position slider: when its input event was dispatched (playwright's fill sets the value, then dispatches input and change).
  let sliderInputAt = null;
  window.addEventListener('input', (event) => {
    if (event.target instanceof Element && event.target.matches('[data-testid=timeline-position]')) sliderInputAt = performance.now();
  }, true);

  /**
   * Resolves with check(inFrame)'s first truthy value, or null after timeoutMs. Checked on every
   * mark and DOM change (inFrame false) and at the start of every frame (inFrame true: what the
   * DOM holds then is what that frame paints, so DOM states are timed there, as the app's marks
   * are, in a requestAnimationFrame callback after the render).
   */
  function until(check, timeoutMs) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (value) => {
        if (done) return;
        done = true;
        waiters.delete(probe);
        clearTimeout(timer);
        resolve(value);
      };
      const probe = (inFrame) => {
        if (done) return;
        const value = check(inFrame === true);
        if (value) finish(value);
      };
      const timer = setTimeout(() => finish(null), timeoutMs);
      waiters.add(probe);
      const frame = () => {
        if (done) return;
        probe(true);
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      probe(false);
    });
  }
  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // --- visibility in the run's timeline -------------------------------------------------------
  const timeline = () => document.querySelector('[data-testid=timeline]');
  /** The timeline's viewport below its sticky lane header. */
  function viewOf(element) {
    const rect = element.getBoundingClientRect();
    const header = element.querySelector('.timeline-lanes');
    const headerHeight = header ? header.getBoundingClientRect().height : 0;
    return { top: rect.top + headerHeight, bottom: rect.top + element.clientHeight };
  }
  function visibleIn(node, view) {
    const rect = node.getBoundingClientRect();
    return rect.height > 0 && rect.bottom > view.top + 1 && rect.top < view.bottom - 1;
  }
  function visibleRows(element) {
    const view = viewOf(element);
    return Array.from(element.querySelectorAll('[data-testid=timeline-row]')).filter((node) => visibleIn(node, view));
  }
  function busyVisible(element) {
    const view = viewOf(element);
    let count = 0;
    for (const node of element.querySelectorAll('[aria-busy=true]')) if (visibleIn(node, view)) count += 1;
    return count;
  }
  function atBottom(element) {
    return element.scrollTop + element.clientHeight >= element.scrollHeight - 2;
  }
  function filled(element) {
    return busyVisible(element) === 0 && visibleRows(element).length > 0;
  }
  function rowFacts(node) {
    return node ? { line: Number(node.dataset.line), type: node.dataset.type, step: node.dataset.step === '' ? null : Number(node.dataset.step), eventId: Number(node.dataset.eventId) } : null;
  }

  // --- a measurement: the app's mark, checked against the DOM state it stands for -------------
  /**
   * Watches from t0 (or from the next keydown, when t0 is 'key') for a mark called markName that
   * accept() takes, and for domCheck() to hold. Resolves once the mark came and the DOM agrees (or
   * GRACE_MS after the mark without it), or after timeoutMs.
   */
  function watch(markName, accept, domCheck, t0, timeoutMs) {
    const state = { t0: t0 === 'key' ? null : t0, markAt: null, domAt: null, mark: null, markSeenAt: null };
    const done = until((inFrame) => {
      if (state.t0 === null) {
        if (lastKeyAt === null) return false;
        state.t0 = lastKeyAt;
      }
      if (inFrame && state.domAt === null && domCheck()) state.domAt = performance.now();
      if (state.mark === null) {
        const mark = marks.find((candidate) => candidate.name === markName && candidate.time >= state.t0 && accept(candidate));
        if (mark) {
          state.markAt = mark.time;
          state.mark = mark;
          state.markSeenAt = performance.now();
        }
      }
      // Done once the DOM agrees (or it does not within GRACE_MS: reported as such).
      return state.mark !== null && (state.domAt !== null || performance.now() - state.markSeenAt > GRACE_MS);
    }, timeoutMs).then(() => ({
      ms: state.markAt !== null ? state.markAt - state.t0 : null,
      source: state.markAt !== null ? 'mark' : 'timeout',
      domMs: state.domAt === null || state.t0 === null ? null : state.domAt - state.t0,
      markDetail: state.mark ? state.mark.detail : null,
    }));
    return done;
  }

  /** The cursor's row (selected) on screen and what it should be: {step} or {eventId}. */
  function cursorCheck(expect) {
    return () => {
      const element = timeline();
      if (!element) return false;
      const row = element.querySelector('[data-testid=timeline-row][data-selected=true]');
      if (!row || !visibleIn(row, viewOf(element))) return false;
      return cursorMatches(row, expect);
    };
  }
  function cursorMatches(row, expect) {
    if (expect.eventId !== undefined) return row.dataset.eventId === String(expect.eventId);
    return row.dataset.step === String(expect.step);
  }
  /** A cursor-shown mark for the expected cursor (any, when the mark carries no event id). */
  function cursorMarkAccept(expect) {
    return (mark) => {
      const eventId = mark.detail && mark.detail.eventId;
      if (eventId === undefined || eventId === null) return true;
      if (expect.eventId !== undefined) return eventId === expect.eventId;
      const row = document.querySelector('[data-testid=timeline-row][data-event-id="' + eventId + '"]');
      return row ? cursorMatches(row, expect) : false;
    };
  }

  /** Frame intervals (requestAnimationFrame), recorded between start() and stop(); phase(): those of a span, with its long tasks. */
  const frames = {
    list: [],
    running: false,
    startedAt: null,
    start() {
      frames.list = [];
      frames.running = true;
      frames.startedAt = performance.now();
      let previous = null;
      const tick = (time) => {
        if (previous !== null) frames.list.push({ at: time, interval: time - previous });
        previous = time;
        if (frames.running) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    stop() { frames.running = false; },
    all: () => frames.list.map((frame) => frame.interval),
    phase: (start, end) => ({
      intervals: frames.list.filter((frame) => frame.at > start && frame.at <= end).map((frame) => frame.interval),
      longTasks: longTasks.filter((task) => task.start >= start && task.start <= end).map((task) => task.duration),
    }),
  };

  /**
   * A jump in the timeline, from t0() (null until the jump began): done at the first frame whose
   * viewport is filled (no placeholder) and shows expectLine; or, when expectLine is null, at the
   * first filled frame at a new place (its first row another than before the jump). With a line
   * expected that the first filled new place lacks, watched settleMs more (the list can settle
   * after its rows are measured); the rows shown are then the last ones seen.
   */
  function jumpWatch(element, t0, expectLine, timeoutMs, settleMs) {
    const before = rowFacts(visibleRows(element)[0]);
    const state = { t0: null, movedAt: null, hitAt: null, rows: [] };
    return until((inFrame) => {
      if (state.t0 === null) {
        state.t0 = t0();
        if (state.t0 === null) return false;
      }
      if (!inFrame || !filled(element)) return false;
      const rows = visibleRows(element).map(rowFacts);
      const now = performance.now();
      if (expectLine !== null && rows.some((row) => row.line === expectLine)) {
        state.hitAt = now;
        state.rows = rows;
        return true;
      }
      const moved = rows.length > 0 && (before === null || rows[0].line !== before.line);
      if (state.movedAt === null && moved) state.movedAt = now;
      if (state.movedAt === null) return false;
      state.rows = rows;
      return expectLine === null || now - state.movedAt > settleMs;
    }, timeoutMs).then(() => {
      const t1 = performance.now();
      const doneAt = state.hitAt !== null ? state.hitAt : state.movedAt;
      return Object.assign(state.t0 === null ? { intervals: [], longTasks: [] } : frames.phase(state.t0, t1), {
        began: state.t0 !== null,
        filledMs: doneAt === null || state.t0 === null ? null : doneAt - state.t0,
        expectedShown: expectLine === null ? null : state.hitAt !== null,
        firstRow: state.rows[0] || null,
        lastRow: state.rows[state.rows.length - 1] || null,
        atBottom: atBottom(element),
      });
    });
  }

  let pending = null;

  window.__bench = {
    marks: marks,
    longTasks: longTasks,
    progressive: progressive,

    /** ms: performance.now() on this page's clock, with timeOrigin, for the clock offset to Node. */
    now: () => ({ origin: performance.timeOrigin, now: performance.now() }),

    /**
     * Once the runs table was first shown: the mark with the API's progress right after it, and the
     * DOM's first painted rows beside it (none when the mark said the ingest ended without runs).
     */
    progressiveDone: () => {
      const mark = progressive.mark;
      return mark !== null && progressive.markProgress !== null && (progressive.firstRowsAt !== null || mark.runRows === 0);
    },
    /** Waits (in the page: the CSP forbids Playwright's string waitForFunction) for progressiveDone(). */
    waitProgressive: (timeoutMs) => until(() => window.__bench.progressiveDone(), timeoutMs),

    /** The document's load and every API call so far, in ms from the page's time origin: where a page load went. */
    loadBreakdown: () => {
      const navigation = performance.getEntriesByType('navigation')[0];
      const calls = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/')).map((entry) => ({
        method: entry.name.slice(entry.name.lastIndexOf('/') + 1),
        start: entry.startTime,
        end: entry.responseEnd,
      }));
      return { domContentLoaded: navigation ? navigation.domContentLoadedEventEnd : null, calls: calls };
    },

    /**
     * Waits for the runs table shown: its mark (with the run rows on screen then) and, the DOM
     * cross-check, the frame that first painted run rows (domTime; null when none came within
     * GRACE_MS of the mark: a trace without runs).
     */
    waitRunsShown: (timeoutMs) =>
      until(() => {
        const mark = marks.find((candidate) => candidate.name === 'loopscope:runs-shown');
        const domTime = progressive.firstRowsAt;
        if (mark) {
          if (domTime === null && performance.now() - mark.seenAt <= GRACE_MS) return null;
          return { time: mark.time, runRows: mark.runRows, domTime: domTime };
        }
        return null;
      }, timeoutMs),

    /** The search API from the page, timed with performance.now() (fetch + JSON). */
    searchApi: async (traceId, query, repetitions) => {
      const times = [];
      let total = null;
      for (let index = 0; index < repetitions; index += 1) {
        const t0 = performance.now();
        const response = await fetch('api/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ traceId: traceId, query: query, offset: 0, limit: 100 }) });
        const body = await response.json();
        times.push(performance.now() - t0);
        if (!response.ok) throw new Error('search answered HTTP ' + response.status + ': ' + JSON.stringify(body).slice(0, 300));
        total = body.total;
      }
      return { times: times, total: total };
    },

    /** Submits the search box (already filled) and waits for the results on screen. */
    submitSearch: (query, timeoutMs) => {
      const input = document.querySelector('[data-testid=search-input]');
      if (!input || !input.form) throw new Error('no search box');
      const domCheck = () => {
        const view = document.querySelector('[data-testid=search-view][data-state=ready]');
        if (!view || view.dataset.query !== query) return false;
        return view.querySelector('[data-testid=search-hit]') !== null || view.querySelector('.state') !== null;
      };
      const accept = (mark) => !mark.detail || mark.detail.query === undefined || mark.detail.query === query;
      const t0 = performance.now();
      const result = watch('loopscope:search-shown', accept, domCheck, t0, timeoutMs);
      input.form.requestSubmit();
      return result.then((measured) => Object.assign(measured, { hits: document.querySelectorAll('[data-testid=search-hit]').length }));
    },

    /** Sets location.hash and waits for the cursor it asks for on screen (loopscope:cursor-shown). */
    jump: (hash, expect, timeoutMs) => {
      const t0 = performance.now();
      const result = watch('loopscope:cursor-shown', cursorMarkAccept(expect), cursorCheck(expect), t0, timeoutMs);
      location.hash = hash;
      return result.then((measured) => Object.assign(measured, { cursor: rowFacts(document.querySelector('[data-testid=timeline] [data-testid=timeline-row][data-selected=true]')) }));
    },

    /** Starts watching for the cursor a key press (the next keydown) will move; then await keyResult(). */
    armKey: (expect, timeoutMs) => {
      lastKeyAt = null;
      pending = watch('loopscope:cursor-shown', cursorMarkAccept(expect), cursorCheck(expect), 'key', timeoutMs);
      return true;
    },
    keyResult: () =>
      pending.then((measured) => Object.assign(measured, { cursor: rowFacts(document.querySelector('[data-testid=timeline] [data-testid=timeline-row][data-selected=true]')) })),

    /** Sets location.hash and waits until the run view is ready with its timeline's rows filled. */
    openRun: (hash, timeoutMs) => {
      const t0 = performance.now();
      location.hash = hash;
      return until((inFrame) => {
        const view = document.querySelector('[data-testid=run-view][data-state=ready]');
        const element = timeline();
        return inFrame && view && element && filled(element) ? performance.now() - t0 : null;
      }, timeoutMs);
    },

    /**
     * Scrolling the timeline, in phases the benchmark calls in turn (the slider is set from
     * playwright between them). scrollStart: the top of the list, rows filled, then frame intervals
     * (requestAnimationFrame) recorded until scrollStop, which returns them with the long tasks.
     */
    scrollStart: async (timeoutMs) => {
      const element = timeline();
      if (!element) throw new Error('no timeline');
      const body = element.querySelector('.timeline-body');
      const geometry = {
        scrollHeight: element.scrollHeight,
        clientHeight: element.clientHeight,
        bodyStyleHeight: body ? body.style.height : null,
        rowsInDom: element.querySelectorAll('[data-testid=timeline-row]').length,
      };
      element.scrollTop = 0;
      await until(() => filled(element), timeoutMs);
      await sleep(300);
      frames.start();
      await nextFrame();
      return geometry;
    },

    /** Steps of one viewport (scrollTop += clientHeight, one per frame) from where the timeline is, then the wait until no placeholder is visible. */
    scrollSteps: async (options) => {
      const element = timeline();
      const stepStart = performance.now();
      let framesWithPlaceholders = 0;
      const firstLine = rowFacts(visibleRows(element)[0]);
      for (let index = 0; index < options.steps; index += 1) {
        element.scrollTop = element.scrollTop + element.clientHeight;
        await nextFrame();
        if (busyVisible(element) > 0) framesWithPlaceholders += 1;
      }
      const stepEnd = performance.now();
      const afterSteps = await until((inFrame) => (inFrame && filled(element) ? performance.now() - stepEnd : null), options.timeoutMs);
      const stepRows = visibleRows(element);
      const steps = Object.assign(frames.phase(stepStart, stepEnd), {
        count: options.steps,
        framesWithPlaceholders: framesWithPlaceholders,
        fromLine: firstLine ? firstLine.line : null,
        toLine: stepRows.length > 0 ? rowFacts(stepRows[0]).line : null,
        filledAfterMs: afterSteps,
        scrollTop: element.scrollTop,
      });
      await sleep(300);
      return steps;
    },

    /**
     * Scrolls to the bottom with the scrollbar (scrollTop = scrollHeight), \`times\` times, each
     * followed by the wait until the rows are filled and 300 ms for the window to move on: the last
     * row shown each time (how far the scrollbar reaches when it spans a window of the list).
     */
    scrollToBottom: async (options) => {
      const element = timeline();
      const lastShown = () => { const rows = visibleRows(element); return rowFacts(rows[rows.length - 1]); };
      const from = lastShown();
      const start = performance.now();
      const scrolls = [];
      for (let index = 0; index < options.times; index += 1) {
        const before = lastShown();
        const t0 = performance.now();
        element.scrollTop = element.scrollHeight;
        const filledMs = await until((inFrame) => {
          if (!inFrame || !filled(element)) return null;
          const last = lastShown();
          return last !== null && (before === null || last.line !== before.line) ? performance.now() - t0 : null;
        }, options.timeoutMs);
        await sleep(300);
        scrolls.push({ filledMs: filledMs, lastRow: lastShown(), atBottom: atBottom(element), scrollHeight: element.scrollHeight });
      }
      return Object.assign(frames.phase(start, performance.now()), { fromLine: from ? from.line : null, scrolls: scrolls });
    },

    /**
     * Before the slider is set (from playwright): watches for its input event, then for the
     * timeline showing filled rows at the new place (see jumpWatch). Then await jumpResult().
     */
    armSliderJump: (options) => {
      const element = timeline();
      if (!element) throw new Error('no timeline');
      sliderInputAt = null;
      pending = jumpWatch(element, () => sliderInputAt, options.expectLine, options.timeoutMs, options.settleMs);
      return true;
    },
    jumpResult: () => pending,

    /** A jump with the scrollbar: scrollTop set to a fraction of the scroll range, then as jumpWatch (no line expected). */
    scrollbarJump: (options) => {
      const element = timeline();
      if (!element) throw new Error('no timeline');
      const t0 = performance.now();
      const result = jumpWatch(element, () => t0, null, options.timeoutMs, 0);
      element.scrollTop = Math.round(options.fraction * (element.scrollHeight - element.clientHeight));
      return result;
    },

    /**
     * After a jump with the scrollbar to the bottom: scrolls to the bottom again (up to maxScrolls
     * times, the list growing as rows are measured taller than estimated) until the last row shown
     * is lastLine. The number of extra scrolls and the last row then.
     */
    scrollEnd: async (options) => {
      const element = timeline();
      const lastShown = () => { const rows = visibleRows(element); return rowFacts(rows[rows.length - 1]); };
      const reachedEnd = () => { const row = lastShown(); return atBottom(element) && row !== null && row.line === options.lastLine; };
      let attempts = 0;
      while (!reachedEnd() && attempts < options.maxScrolls) {
        attempts += 1;
        element.scrollTop = element.scrollHeight;
        await until(() => filled(element), options.timeoutMs);
        await sleep(300);
      }
      return { attempts: attempts, lastRow: lastShown(), atBottom: atBottom(element) };
    },

    /** Stops the frame recording: every frame interval and long task since scrollStart. */
    scrollStop: async () => {
      frames.stop();
      await nextFrame();
      return { allIntervals: frames.all(), allLongTasks: longTasks.filter((task) => task.start >= frames.startedAt).map((task) => task.duration) };
    },
  };
})();
`;
