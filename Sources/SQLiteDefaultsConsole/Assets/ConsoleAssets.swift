#if Console
/// The page, its script and its style, embedded in the binary: no files beside it, no CDN,
/// nothing fetched from elsewhere, so the console works offline and from a static binary.
enum ConsoleAssets {
    /// The page's HTML: a shell the script fills; no inline script or style (the
    /// Content-Security-Policy allows neither).
    static let page = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Preferences</title>
    <link rel="stylesheet" href="console.css">
    <script src="console.js" defer></script>
    </head>
    <body>
    <header>
      <h1>Preferences</h1>
      <span id="status" data-role="status" class="status">connecting…</span>
      <span id="identity" data-role="identity" class="identity"></span>
      <input id="prefix" data-role="prefix" type="search" placeholder="Key prefix" aria-label="Keys that start with" autocomplete="off">
      <input id="filter" data-role="filter" type="search" placeholder="Filter keys" aria-label="Keys that contain" autocomplete="off">
    </header>
    <form id="add" data-role="add" class="add" autocomplete="off">
      <input name="key" data-role="add-key" placeholder="New key" aria-label="New key" required>
      <select name="type" data-role="add-type" aria-label="Type">
        <option value="string">string</option><option value="int">int</option><option value="double">double</option>
        <option value="bool">bool</option><option value="json">json</option><option value="date">date</option>
        <option value="url">url</option><option value="data">data</option>
      </select>
      <input name="value" data-role="add-value" placeholder="Value" aria-label="Value">
      <button type="submit" data-role="add-save">Add</button>
      <span class="error" data-role="add-error" hidden></span>
    </form>
    <main>
      <table id="keys">
        <thead><tr><th>Key</th><th>Type</th><th>Value</th><th>Default</th><th>Last change</th><th></th></tr></thead>
        <tbody id="rows"></tbody>
      </table>
      <button type="button" id="more" data-role="more" class="more" hidden>More keys</button>
      <p id="empty" class="empty" hidden>No keys yet. Add one above, or write one with <code>prefs write KEY VALUE</code>.</p>
    </main>
    <section id="history-panel" class="history" data-role="history-panel" hidden>
      <header><h2 id="history-title">History</h2><button type="button" id="history-close" data-role="history-close">Close</button></header>
      <div id="history-chart" class="chart"></div>
      <ol id="history-entries"></ol>
    </section>
    </body>
    </html>
    """#
}
#endif
