// The widget's stylesheet, scoped by its shadow root. `:host` resets everything it could
// inherit from the host page; its !important rules win over the page's own !important ones
// (the inner context wins for important declarations), so `* { all: unset !important }`
// on the page cannot undo them. Pixel units only: a page's `html { font-size }` would
// otherwise resize the widget.
export const CSS = `
:host{all:initial!important;display:block!important;position:fixed!important;z-index:2147483647!important;inset:auto!important;width:0!important;height:0!important;margin:0!important;padding:0!important;border:0!important;transform:none!important;filter:none!important;opacity:1!important;visibility:visible!important;pointer-events:auto!important;contain:none!important}
*{box-sizing:border-box;margin:0;padding:0;border:0;font:inherit;color:inherit;background:none;letter-spacing:normal;text-transform:none}
.w{--c:#2563eb;--f:#fff;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#111827;-webkit-font-smoothing:antialiased}
button{cursor:pointer;display:inline-flex;align-items:center;justify-content:center}
button:focus-visible,textarea:focus-visible,.log:focus-visible{outline:2px solid var(--c);outline-offset:2px}
svg{width:24px;height:24px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.launcher{position:fixed;bottom:20px;right:20px;width:56px;height:56px;border-radius:50%;background:var(--c);color:var(--f);box-shadow:0 6px 20px rgba(0,0,0,.25);transition:transform .15s}
.launcher:hover{transform:scale(1.06)}
.badge{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 5px;border-radius:11px;background:#dc2626;color:#fff;border:2px solid #fff;font-size:12px;font-weight:700;line-height:18px}
.preview{position:fixed;bottom:86px;right:20px;max-width:min(280px,calc(100vw - 40px));padding:10px 14px;border-radius:12px;background:#fff;color:#111827;font-size:13px;text-align:left;box-shadow:0 6px 20px rgba(0,0,0,.2);display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere}
.left .preview{left:20px;right:auto}
b,strong{font-weight:700}
i,em{font-style:italic}
.panel{position:fixed;bottom:88px;right:20px;width:370px;max-width:calc(100vw - 24px);height:560px;max-height:calc(100vh - 112px);display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.28);overflow:hidden}
.left .launcher{left:20px;right:auto}
.left .panel{left:20px;right:auto}
[hidden]{display:none!important}
header{display:flex;align-items:center;gap:8px;padding:14px 14px 14px 18px;background:var(--c);color:var(--f)}
header div{flex:1;min-width:0}
h2{font-size:16px;font-weight:600;line-height:1.3;overflow-wrap:anywhere}
header p{font-size:13px;overflow-wrap:anywhere}
.away{padding:8px 18px;background:#fef3c7;color:#78350f;font-size:13px;overflow-wrap:anywhere}
.conn{display:flex;align-items:center;gap:6px;font-size:12px}
.conn::before{content:"";width:8px;height:8px;border-radius:50%;background:#fbbf24;box-shadow:0 0 0 1px #fff}
.conn[data-s=online]::before{background:#22c55e}
.conn[data-s=offline]::before{background:#6b7280}
.conn:empty{display:none}
.close{width:32px;height:32px;border-radius:8px;color:var(--f);flex:none}
.close:hover{background:rgba(255,255,255,.18)}
.close svg{width:20px;height:20px}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:8px;background:#f9fafb}
.msg{max-width:82%;padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #e5e7eb;align-self:flex-start}
.msg.in{align-self:flex-end;background:var(--c);color:var(--f);border-color:transparent}
.msg.pending .meta{font-style:italic}
.in .meta{opacity:1}
.agent{display:flex;align-items:center;gap:6px;margin-bottom:4px;font-size:12px;font-weight:600;color:#374151}
.av{width:22px;height:22px;border-radius:50%;display:grid;place-items:center;background:var(--c);color:var(--f);font-size:11px}
.typing{font-style:italic;opacity:.7}
.msg.failed{background:#fef2f2;color:#991b1b;border-color:#fecaca}
.meta{display:block;font-size:11px;opacity:.75;margin-top:2px}
.meta button{text-decoration:underline;margin-left:6px;font-size:11px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.status{padding:6px 14px;font-size:12px;color:#92400e;background:#fffbeb}
.status:empty{display:none}
.status.closed{flex:1;display:grid;place-items:center;padding:24px;font-size:14px;text-align:center;color:#374151;background:#f9fafb}
form{display:flex;gap:8px;align-items:flex-end;padding:10px;border-top:1px solid #e5e7eb;background:#fff}
textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:9px 12px;border:1px solid #d1d5db;border-radius:10px;background:#fff;white-space:pre-wrap}
textarea::placeholder{color:#6b7280}
.send{width:40px;height:40px;border-radius:10px;background:var(--c);color:var(--f);flex:none}
.send svg{width:20px;height:20px}
.kb{display:flex;flex-direction:column;gap:4px;margin-top:6px;white-space:normal}
.kr{display:flex;gap:4px}
.kbb{flex:1;min-width:0;min-height:32px;padding:5px 8px;border-radius:8px;border:1px solid var(--c);color:var(--c);background:#fff;font-size:13px;text-align:center;text-decoration:none;overflow-wrap:anywhere;display:inline-flex;align-items:center;justify-content:center}
.kbb:disabled{opacity:.5;cursor:default}
.kbb.busy::after{content:"";width:10px;height:10px;margin-left:6px;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:r .8s linear infinite}
@keyframes r{to{transform:rotate(360deg)}}
header,form,.status{flex:none}
.panel{overflow:clip}
.log{min-height:0}
.rk{flex:none;max-height:40%;overflow-y:auto;display:flex;flex-direction:column;gap:4px;padding:8px 10px 0;background:#fff;border-top:1px solid #e5e7eb}
.toast{position:absolute;left:50%;bottom:72px;transform:translateX(-50%);max-width:85%;padding:8px 14px;border-radius:10px;background:#111827;color:#fff;font-size:13px;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.alert{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:12px;padding:24px;background:rgba(17,24,39,.55);color:#fff;text-align:center}
.alert p{background:#fff;color:#111827;padding:16px;border-radius:12px;max-width:100%;overflow-wrap:anywhere}
.alert button{padding:8px 20px;border-radius:8px;background:var(--c);color:var(--f)}
.att{width:40px;height:40px;border-radius:10px;color:#6b7280;flex:none}
.att:hover{background:#f3f4f6}
.files{display:flex;flex-wrap:wrap;gap:6px;margin-top:4px;white-space:normal}
.thumb{border-radius:8px;overflow:hidden;background:#e5e7eb}
.thumb img{display:block;max-width:200px;max-height:200px;height:auto}
.card{display:flex;flex-direction:column;min-width:160px;padding:8px 10px;border-radius:8px;background:rgba(0,0,0,.07);text-decoration:none}
.fn{font-weight:600;overflow-wrap:anywhere}
.fs{font-size:12px;opacity:.8;text-decoration:underline}
.up{display:flex;gap:8px;align-items:center;margin-top:4px;min-width:180px}
.up progress{flex:1;height:8px;accent-color:#fff}
.up button{font-size:12px;text-decoration:underline}
.drop .log{outline:2px dashed var(--c);outline-offset:-6px}
.viewer{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:10px;padding:16px;background:rgba(17,24,39,.92)}
.viewer img{max-width:100%;max-height:85%;object-fit:contain;background:#fff}
.viewer button{padding:6px 16px;border-radius:8px;background:#fff;color:#111827}
@media (max-width:480px){.panel,.left .panel{inset:0;width:100%;max-width:none;height:100%;max-height:none;border-radius:0}.launcher,.left .launcher{bottom:16px;right:16px}.left .launcher{left:16px;right:auto}}
.rate{margin:8px auto;padding:10px;border:1px solid #e5e7eb;border-radius:10px;text-align:center;display:grid;gap:6px;max-width:260px}
.rate div button{font-size:24px;color:#d1d5db;padding:0 3px}
.rate [aria-pressed=true]{color:#f59e0b}
.rate input{border:1px solid #d1d5db;border-radius:8px;padding:6px 8px}
.rate [type=submit]{background:var(--c);color:var(--f);border-radius:8px;padding:6px}
.rate [type=submit]:disabled{opacity:.5}
`;
