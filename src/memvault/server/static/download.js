// Downloads made in the page: the export is fetched with the key (a plain link could not
// send it), then handed to the browser as a file through a short-lived blob: URL.
import { api } from "./core.js";

// Fetch a user's export and save it as <user>.jsonl; returns how many lines it holds.
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
  return text.split("\n").filter((line) => line.trim()).length;
}
