#if Console
extension ConsoleAssets {
    /// The page's style: a table on a laptop, one card per key on a phone.
    static let style = #"""
    :root { color-scheme: light dark; --fg: #1d1d1f; --muted: #6e6e73; --bg: #fbfbfd; --line: #e3e3e8;
      --accent: #0a66d8; --fresh: #fff4c2; --error: #c4271d; --card: #fff; }
    .conflict { margin-top: .3rem; padding: .3rem .5rem; border-left: 3px solid #c77700; background: rgba(199, 119, 0, .08); }
    .reason { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 12rem; overflow: auto; }
    [data-role=reason] { min-width: 10rem; }
    @media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --muted: #9a9aa3; --bg: #16161a; --line: #2c2c33;
      --accent: #5aa2ff; --fresh: #4a3f12; --error: #ff6b5e; --card: #1e1e24; } }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
    body > header { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: 1rem 1.25rem; border-bottom: 1px solid var(--line); }
    h1 { font-size: 1.25rem; margin: 0; }
    .status { color: var(--muted); font-size: .85rem; }
    .status.live::before { content: "● "; color: #2e9b4f; }
    .identity { color: var(--muted); font-size: .85rem; }
    .identity:empty { display: none; }
    #prefix { margin-left: auto; min-width: 9rem; }
    #filter { min-width: 12rem; }
    .more { display: block; margin: 1rem auto; }
    .more[hidden] { display: none; }
    input, select, textarea, button { font: inherit; color: inherit; }
    input, select, textarea { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .3rem .5rem; }
    textarea { width: 100%; min-height: 5rem; font-family: ui-monospace, Menlo, monospace; font-size: .9em; }
    button { border: 1px solid var(--line); background: var(--card); border-radius: 6px; padding: .25rem .65rem; cursor: pointer; }
    button:hover { border-color: var(--accent); }
    button[data-role=save], button[data-role=add-save] { background: var(--accent); border-color: var(--accent); color: #fff; }
    .add { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); }
    main { padding: 0 1.25rem 2rem; }
    table { width: 100%; border-collapse: collapse; table-layout: fixed; }
    th:nth-child(1) { width: 24%; } th:nth-child(2) { width: 9%; } th:nth-child(3) { width: 28%; }
    th:nth-child(4) { width: 11%; } th:nth-child(5) { width: 13%; } th:nth-child(6) { width: 15%; }
    th { text-align: left; font-weight: 600; font-size: .8rem; color: var(--muted); padding: .6rem .5rem; border-bottom: 1px solid var(--line); }
    td { padding: .55rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    td.key { font-family: ui-monospace, Menlo, monospace; word-break: break-all; }
    .summary { font-family: system-ui, sans-serif; color: var(--muted); font-size: .85rem; }
    .flag { display: flex; flex-wrap: wrap; gap: .25rem .6rem; align-items: center; margin-top: .3rem; font-size: .85rem; }
    .flag code { font-size: .8rem; overflow-wrap: anywhere; }
    .flag-state { font-weight: 600; }
    .flag-state[data-state=ENABLED] { color: #1a7f37; }
    .flag-state[data-state=DISABLED] { color: var(--muted); }
    .value { font-family: ui-monospace, Menlo, monospace; white-space: pre-wrap; word-break: break-all; }
    .unset { color: var(--muted); font-style: italic; }
    .type { font-size: .8rem; color: var(--muted); }
    .changed { font-size: .8rem; color: var(--muted); }
    .actions { text-align: right; }
    .actions button { margin: 0 0 .25rem .25rem; }
    .editor-box { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
    .error { color: var(--error); font-size: .85rem; display: block; }
    .error[hidden] { display: none; }
    tr.fresh { background: var(--fresh); transition: background 2s; }
    .badge { display: inline-block; font-size: .7rem; font-family: system-ui, sans-serif; background: var(--accent); color: #fff; border-radius: 4px; padding: 0 .3rem; margin-left: .35rem; }
    .empty { color: var(--muted); padding: 2rem 0; }
    .history { position: fixed; right: 0; top: 0; bottom: 0; width: min(32rem, 100%); background: var(--card); border-left: 1px solid var(--line); padding: 1rem; overflow: auto; box-shadow: -6px 0 24px rgba(0,0,0,.12); }
    .history header { display: flex; justify-content: space-between; align-items: center; }
    .history h2 { font-size: 1rem; margin: 0; word-break: break-all; }
    .history ol { list-style: none; padding: 0; }
    .history li { border-bottom: 1px solid var(--line); padding: .4rem 0; font-size: .9rem; }
    .chart svg { width: 100%; height: 140px; }
    .chart polyline { fill: none; stroke: var(--accent); stroke-width: 2; }
    .chart circle { fill: var(--accent); }
    .chart text { fill: var(--muted); font-size: 10px; }
    @media (max-width: 700px) {
      thead { display: none; }
      table, tbody, tr, td { display: block; width: 100%; }
      tr { border: 1px solid var(--line); border-radius: 8px; margin: .75rem 0; padding: .5rem; background: var(--card); }
      td { border: 0; padding: .2rem .25rem; max-width: none; }
      td.actions { text-align: left; }
      #prefix, #filter { margin-left: 0; width: 100%; }
    }
    """#
}
#endif
