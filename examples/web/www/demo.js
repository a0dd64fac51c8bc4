// Runs the histogram demo (examples/web/src/demo.rs) on the page's canvas.
import init, { demo } from '/pkg/atomport_web.js';

const status = document.getElementById('status');
const params = new URLSearchParams(location.search);
const width = Number(params.get('width') || 512);
const height = Number(params.get('height') || 384);
try {
  await init();
  status.textContent = await demo(document.getElementById('picture'), width, height);
} catch (e) {
  status.textContent = String(e);
  status.className = 'error';
}
window.demoDone = true;
