// Prints a shader's WGSL through atomport's JavaScript package, as
// `atomport translate` does:
//
//   node examples/web/translate.mjs SHADER [-D NAME[=VALUE]]… [-I DIR]… [--target webgpu|native] [--translation]
//
// The package is the one scripts/build-web makes ($ATOMPORT_WEB_DIR/npm/atomport,
// target/web by default). Files the shader includes are read here and given
// to the package by their text (it has no file system of its own).
// Exit status: 0, 1 (the shader's error, on stderr), 2 (usage).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const webDir = process.env.ATOMPORT_WEB_DIR || path.join(root, 'target/web');
const usage = 'usage: node translate.mjs SHADER [-D NAME[=VALUE]]... [-I DIR]... [--target webgpu|native] [--translation]';

function fail(message, code) {
  process.stderr.write(`atomport: ${message}\n`);
  process.exit(code);
}

const args = process.argv.slice(2);
const options = { defines: [], includeDirs: [], files: {} };
let shader;
let whole = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const value = (flag) => {
    if (a.length > flag.length) return a.slice(flag.length).replace(/^=/, '');
    if (i + 1 >= args.length) fail(`${flag} needs a value\n${usage}`, 2);
    return args[++i];
  };
  if (a === '--help' || a === '-h') { console.log(usage); process.exit(0); }
  else if (a.startsWith('-D')) options.defines.push(value('-D'));
  else if (a.startsWith('-I')) options.includeDirs.push(value('-I'));
  else if (a.startsWith('--target')) options.target = value('--target');
  else if (a === '--translation') whole = true;
  else if (a.startsWith('-') && a !== '-') fail(`unknown flag ${a}\n${usage}`, 2);
  else if (shader === undefined) shader = a;
  else fail(`one shader only (${shader}, ${a})\n${usage}`, 2);
}
if (shader === undefined) fail(`no shader named\n${usage}`, 2);

let source;
try {
  source = fs.readFileSync(shader);
} catch (e) {
  fail(`${shader}: ${e.message}`, 1);
}
const lang = shader.endsWith('.spv') ? 'spirv' : shader.endsWith('.wgsl') ? 'wgsl' : 'glsl';
options.name = shader;
options.lang = lang;

// Every file the shader may include, found as the translator searches: the
// including file's folder for "x", then the -I folders.
function gather(file, text, depth) {
  if (depth > 32) return;
  for (const m of text.matchAll(/^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)/gm)) {
    const header = m[1] ?? m[2];
    const folders = [...(m[1] ? [path.dirname(file)] : []), ...options.includeDirs];
    for (const dir of folders) {
      const candidate = path.join(dir, header);
      if (candidate in options.files || !fs.existsSync(candidate) || !fs.statSync(candidate).isFile()) continue;
      options.files[candidate] = fs.readFileSync(candidate, 'utf8');
      gather(candidate, options.files[candidate], depth + 1);
      break;
    }
  }
}
if (lang === 'glsl') gather(shader, source.toString('utf8'), 0);

const pkg = path.join(webDir, 'npm/atomport/index.js');
if (!fs.existsSync(pkg)) fail(`no package at ${pkg}: run scripts/build-web`, 1);
const atomport = await import(pkg);
try {
  const t = await atomport.translate(lang === 'spirv' ? new Uint8Array(source) : source.toString('utf8'), options);
  // As `atomport translate` words them: the shader as named, the line where known.
  for (const w of t.warnings) {
    const at = w.line === undefined ? shader : `${shader}:${w.line}`;
    process.stderr.write(`${at}: warning: ${w.message}\n`);
  }
  process.stdout.write(whole ? `${JSON.stringify(t.translation, null, 2)}\n` : t.wgsl);
} catch (e) {
  if (!(e instanceof atomport.AtomportError)) throw e;
  fail(e.message, e.kind === 'usage' ? 2 : 1);
}
