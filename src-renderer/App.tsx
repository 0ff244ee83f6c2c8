import { useEffect, useState } from 'react';

export function App() {
  const [version, setVersion] = useState<string>();

  useEffect(() => {
    const bridge = window.loopscope;
    if (!bridge) return;
    let active = true;
    bridge.version().then(
      (value) => {
        if (active) setVersion(value);
      },
      (error: unknown) => console.error('Could not read the Loopscope version:', error),
    );
    return () => {
      active = false;
    };
  }, []);

  return (
    <main className="app">
      <h1>Loopscope</h1>
      <p>The trace viewer is coming soon.</p>
      {version !== undefined && <p className="version">Version {version}</p>}
    </main>
  );
}
