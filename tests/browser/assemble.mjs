// Assembles an MCP App the way the server's build does (codegen/src/apps.rs): a line that is
// only `<!-- inline: PATH -->` (PATH relative to the HTML file) becomes the file's contents in
// <style> (.css) or <script> (.js). Usage: node assemble.mjs apps/overview/index.html > out.html
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export function assemble(htmlPath) {
  const text = readFileSync(htmlPath, "utf8");
  const dir = dirname(htmlPath);
  let out = "";
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    const m = /^<!-- inline:(.*)-->$/.exec(t);
    if (!m) {
      out += line + "\n";
      continue;
    }
    const rel = m[1].trim();
    const [open, close] = rel.endsWith(".css")
      ? ["<style>", "</style>"]
      : rel.endsWith(".js")
        ? ["<script>", "</script>"]
        : [null, null];
    if (!open) throw new Error(`${htmlPath}: only .css and .js are inlined, not ${rel}`);
    const body = readFileSync(resolve(dir, rel), "utf8");
    if (body.includes(close)) throw new Error(`${rel} contains ${close}`);
    out += `${open}\n${body.trimEnd()}\n${close}\n`;
  }
  // The build writes every line with "\n" after it, so a final newline is kept as-is.
  return text.endsWith("\n") ? out : out;
}

/** Outside addresses an app must not contain (the same list the build checks). */
export function outsideUrls(html) {
  return html.match(/(https?:\/\/|wss?:\/\/|\/\/cdn)[^\s"')]*/g) || [];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: node assemble.mjs apps/<app>/index.html");
    process.exit(2);
  }
  const html = assemble(file);
  const urls = outsideUrls(html);
  if (urls.length) {
    console.error(`outside addresses in ${file}: ${urls.join(", ")}`);
    process.exit(1);
  }
  process.stdout.write(html);
  console.error(`${file}: ${Buffer.byteLength(html)} bytes`);
}
