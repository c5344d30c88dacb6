// Downloads made in the page: the export is fetched with the key (a plain link could not
// send it), then handed to the browser as a file through a short-lived blob: URL.
import { api, plural } from "./core.js";

// Fetch a user's export and save it as <user>.jsonl; returns what it holds, by kind of line
// ({ memories, cards, tasks }: a line without "record" is a memory).
export async function downloadExport(userId, options) {
  const res = await api("GET", "/v1/memories/export", { ...options, raw: true });
  const text = await res.text();
  const blob = new Blob([text], { type: "application/x-ndjson" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `memvault-${userId}.jsonl`;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has the file once the click is handled; free the URL a moment later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  const counts = { memories: 0, cards: 0, tasks: 0 };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const record = JSON.parse(line).record || "memory";
    if (record === "card") counts.cards += 1;
    else if (record === "task") counts.tasks += 1;
    else counts.memories += 1;
  }
  return counts;
}

// "3 memories, 1 state card and 2 tasks" (the workspace parts only when there are some).
export function describeExport({ memories, cards = 0, tasks = 0 }) {
  const parts = [plural(memories, "memory", "memories")];
  if (cards) parts.push(plural(cards, "state card", "state cards"));
  if (tasks) parts.push(plural(tasks, "task", "tasks"));
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}
