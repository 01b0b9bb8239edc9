import { type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';

export interface Tab {
  /** Stable within the list: names the tab's and its panel's element ids. */
  id: string;
  /** The tab's name: its text, with anything shown under it (a count). */
  label: ReactNode;
  panel: ReactNode;
}

/** The key that moves to which tab, from `index` among `count` (the ARIA tabs pattern, wrapping around). */
const MOVES: Record<string, (index: number, count: number) => number> = {
  ArrowRight: (index, count) => (index + 1) % count,
  ArrowLeft: (index, count) => (index - 1 + count) % count,
  Home: () => 0,
  End: (_index, count) => count - 1,
};

/**
 * Tabs with their panels (the WAI-ARIA tabs pattern): one Tab stop for the list, arrow keys, Home and End
 * move to a tab and show its panel. Every panel stays rendered, hidden but the selected one's, so that each
 * tab names a panel that exists.
 */
export function Tabs({ label, tabs }: { label: string; tabs: readonly Tab[] }) {
  const base = useId();
  const [selected, setSelected] = useState(tabs[0]?.id);
  const list = useRef<HTMLDivElement>(null);
  const tabId = (id: string) => `${base}-tab-${id}`;
  const panelId = (id: string) => `${base}-panel-${id}`;

  function onKeyDown(event: KeyboardEvent, index: number) {
    const move = MOVES[event.key];
    const next = move === undefined ? undefined : tabs[move(index, tabs.length)];
    if (next === undefined) return;
    event.preventDefault();
    setSelected(next.id);
    list.current?.querySelector<HTMLElement>(`#${CSS.escape(tabId(next.id))}`)?.focus();
  }

  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tab-list" ref={list}>
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={tabId(tab.id)}
            aria-selected={tab.id === selected}
            aria-controls={panelId(tab.id)}
            tabIndex={tab.id === selected ? 0 : -1}
            className="tab"
            onClick={() => {
              setSelected(tab.id);
            }}
            onKeyDown={(event) => {
              onKeyDown(event, index);
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={panelId(tab.id)}
          aria-labelledby={tabId(tab.id)}
          hidden={tab.id !== selected}
          className="tab-panel"
        >
          {tab.panel}
        </div>
      ))}
    </div>
  );
}
