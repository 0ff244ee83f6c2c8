import { createContext, useEffect } from 'react';
import { useLatest } from '../components/useLatest';

/** Every shortcut, for the `?` dialog: the single list of what the keys do. */
export const shortcutList: readonly { keys: string[]; action: string }[] = [
  { keys: ['j', '↓'], action: 'Next step (in a run); next row (in a list); next request (j, in a request diff)' },
  { keys: ['k', '↑'], action: 'Previous step (in a run); previous row (in a list); previous request (k, in a request diff)' },
  { keys: ['n'], action: 'Next finding in the run' },
  { keys: ['p'], action: 'Previous finding in the run' },
  { keys: ['Enter'], action: 'Open the selected event (in a run); open the selected run (in the runs table); open the selected call (in the calls list)' },
  { keys: ['Esc'], action: 'Back: close the event, then leave the run; from a request diff, back to the run' },
  { keys: ['Ctrl+F', '⌘F'], action: 'Search the whole trace (the data, not only the rows on screen)' },
  { keys: ['Enter', 'F3'], action: 'Next search match (in an event opened from a search hit)' },
  { keys: ['d'], action: 'Diff the selected request with the previous one (in a run; on another event, the nearest request at or before it)' },
  { keys: ['s'], action: 'Switch a request diff between the word diff and side by side (in a request diff)' },
  { keys: ['f'], action: "Follow new events: keep the run's last event in view while its file is written (in a run of a followed file)" },
  { keys: ['←', '→'], action: 'Resize the event inspector (on the focused divider beside it; Shift for bigger steps, Home / End for the limits)' },
  { keys: ['?'], action: 'Show this list' },
];

/** Keys typed into a field are text, not commands. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) return !['checkbox', 'radio', 'range', 'button', 'submit', 'reset'].includes(target.type);
  return false;
}

/** The name a handler is registered under: `j`, `ArrowDown`, `Enter`, `Escape`, `?`, `mod+f`. */
function keyName(event: KeyboardEvent): string | null {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && !event.altKey && event.key.toLowerCase() === 'f') return 'mod+f';
  if (mod || event.altKey) return null;
  return event.key;
}

export type ShortcutHandlers = Partial<Record<string, (event: KeyboardEvent) => void>>;

/**
 * Registers window-level shortcuts while the component is mounted. Shortcuts are inactive while
 * typing in a field and inside a modal dialog (the dialog owns its keys); `mod+f` works
 * everywhere, since the browser's own find would search only the rows on screen.
 */
export function useShortcuts(handlers: ShortcutHandlers): void {
  const current = useLatest(handlers);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.defaultPrevented) return;
      const name = keyName(event);
      if (name === null) return;
      const handler = current.current[name];
      if (!handler) return;
      if (name !== 'mod+f') {
        if (isTyping(event.target)) return;
        if (event.target instanceof Element && event.target.closest('dialog')) return;
        // Enter on a focused link or button activates it, as everywhere else.
        if (name === 'Enter' && event.target instanceof Element && event.target.closest('a, button')) return;
      }
      event.preventDefault();
      handler(event);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [current]);
}

/** Opens the `?` dialog from a button (the App provides it). */
export const ShowShortcutsContext = createContext<() => void>(() => undefined);
