// Run a Python script under MicroPython (WebAssembly port) with files preloaded at /.
// usage: node run.mjs SCRIPT.py [FILE ...]   (each FILE is copied to /<basename>)
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript/micropython.mjs";
import { readFileSync } from "fs";
import { basename } from "path";

const [, , script, ...files] = process.argv;
let out = "";
const mp = await loadMicroPython({
  stdout: (s) => { out += s + "\n"; },
  stderr: (s) => { out += s + "\n"; },
});
for (const f of files) {
  mp.FS.writeFile("/" + basename(f), readFileSync(f, "utf8"));
}
try {
  mp.runPython("import sys\nsys.path.append('/')\n" + readFileSync(script, "utf8"));
} catch (e) {
  process.stdout.write(out);
  console.error("MicroPython error: " + (e.message ?? e));
  process.exit(1);
}
process.stdout.write(out);
