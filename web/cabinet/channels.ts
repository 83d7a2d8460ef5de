// The bot's eight channels: an on/off switch each, and a config editor (a form for the
// widget and callback channels, JSON for the rest).
import { patch, type Channel } from "./api.ts";
import { h, replace, toast } from "./dom.ts";

const LABELS: Record<string, string> = {
  web: "Web", website: "Website", widget: "Website widget", sitecms: "Site forms (CMS plugin)",
  crm: "CRM", email: "E-mail", mobile_app: "Mobile app", custom_api: "Custom API",
};
const CALLBACK_CHANNELS = new Set(["custom_api", "crm", "mobile_app", "email"]);

type Field = { key: string; label: string; kind: "text" | "textarea" | "color" | "position" | "lines" | "password" };
const WIDGET_FIELDS: Field[] = [
  { key: "title", label: "Title", kind: "text" },
  { key: "subtitle", label: "Subtitle", kind: "text" },
  { key: "greeting", label: "Greeting", kind: "textarea" },
  { key: "color", label: "Color", kind: "color" },
  { key: "position", label: "Position", kind: "position" },
  { key: "allowed_origins", label: "Allowed origins (one per line, e.g. https://shop.example; empty = any site)", kind: "lines" },
];
const CALLBACK_FIELDS: Field[] = [
  { key: "callback_url", label: "Callback URL (outgoing messages are POSTed here)", kind: "text" },
  { key: "secret", label: "Signing secret", kind: "password" },
];

export function channelsSection(botId: string, channels: Channel[]): HTMLElement {
  return h("ul", { class: "channels" }, channels.map((c) => channelRow(botId, c)));
}

function channelRow(botId: string, initial: Channel): HTMLElement {
  let channel = initial;
  const label = LABELS[channel.channel_type] ?? channel.channel_type;
  const state = h("span", { class: "muted small" });
  const toggle = h("button", {
    type: "button",
    role: "switch",
    class: "switch",
    "aria-label": `${label} channel`,
    onclick: async () => {
      toggle.disabled = true;
      try {
        channel = await patch<Channel>(`/api/bots/${botId}/channels`, { channel_type: channel.channel_type, is_active: !channel.is_active });
        show();
        toast(`${label} ${channel.is_active ? "enabled" : "disabled"}`);
      } catch (err) {
        toast((err as Error).message, "error");
      } finally {
        toggle.disabled = false;
      }
    },
  }, h("span", { class: "knob", "aria-hidden": "true" }));
  const editorId = `config-${channel.channel_type}`;
  const editor = h("div", { class: "channel-config", id: editorId, hidden: true });
  const configure = h("button", {
    type: "button",
    class: "ghost small",
    "aria-expanded": "false",
    "aria-controls": editorId,
    onclick: () => {
      editor.hidden = !editor.hidden;
      configure.setAttribute("aria-expanded", String(!editor.hidden));
      if (!editor.hidden) replace(editor, configForm(botId, channel, (saved) => (channel = saved)));
    },
  }, "Configure");
  const show = () => {
    toggle.setAttribute("aria-checked", String(channel.is_active));
    state.textContent = channel.is_active ? "On" : "Off";
  };
  show();
  return h("li", { class: "channel" },
    h("div", { class: "channel-row" },
      toggle,
      h("div", { class: "channel-name" }, h("strong", null, label), " ", state),
      h("code", { class: "muted small" }, channel.channel_type),
      configure,
    ),
    editor,
  );
}

function configForm(botId: string, channel: Channel, saved: (c: Channel) => void): HTMLFormElement {
  const type = channel.channel_type;
  const fields = type === "widget" ? WIDGET_FIELDS : CALLBACK_CHANNELS.has(type) ? CALLBACK_FIELDS : null;
  const config = channel.config;
  const error = h("p", { class: "form-error", role: "alert" });
  const inputs = new Map<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>();
  const id = (key: string) => `${type}-${key}`;

  const controls = fields
    ? fields.map((f) => {
        const value = config[f.key];
        let input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
        if (f.kind === "textarea") input = h("textarea", { rows: 2, value: typeof value === "string" ? value : "" });
        else if (f.kind === "lines") input = h("textarea", { rows: 3, value: Array.isArray(value) ? value.join("\n") : "" });
        else if (f.kind === "position") {
          input = h("select", null, h("option", { value: "right" }, "Bottom right"), h("option", { value: "left" }, "Bottom left"));
          input.value = value === "left" ? "left" : "right";
        } else if (f.kind === "color") input = h("input", { type: "color", value: typeof value === "string" ? value : "#2563eb" });
        else input = h("input", { type: f.kind === "password" ? "password" : "text", value: typeof value === "string" ? value : "", autocomplete: "off" });
        input.id = id(f.key);
        inputs.set(f.key, input);
        return h("div", { class: "field" }, h("label", { for: input.id }, f.label), input);
      })
    : [h("div", { class: "field" },
        h("label", { for: id("json") }, "Config (JSON)"),
        h("textarea", { id: id("json"), rows: 5, class: "mono", value: JSON.stringify(config, null, 2) }),
      )];

  const collect = (): Record<string, unknown> => {
    if (!fields) return JSON.parse((document.getElementById(id("json")) as HTMLTextAreaElement).value || "{}");
    // Keys the form does not show are kept: integrations may store their own settings.
    const next: Record<string, unknown> = { ...config };
    for (const f of fields) {
      const raw = inputs.get(f.key)!.value.trim();
      if (f.kind === "lines") {
        const lines = raw.split("\n").map((l) => l.trim()).filter(Boolean);
        if (lines.length) next[f.key] = lines;
        else delete next[f.key];
      } else if (raw) next[f.key] = raw;
      else delete next[f.key];
    }
    return next;
  };

  const submit = h("button", { type: "submit", class: "primary small" }, "Save");
  return h("form", {
    class: "config-form",
    "aria-label": `${LABELS[type] ?? type} settings`,
    onsubmit: async (e: SubmitEvent) => {
      e.preventDefault();
      error.textContent = "";
      let next: Record<string, unknown>;
      try {
        next = collect();
      } catch {
        error.textContent = "The config is not valid JSON.";
        return;
      }
      submit.disabled = true;
      try {
        saved(await patch<Channel>(`/api/bots/${botId}/channels`, { channel_type: type, config: next }));
        toast("Settings saved");
      } catch (err) {
        error.textContent = (err as Error).message;
      } finally {
        submit.disabled = false;
      }
    },
  }, controls, error, h("div", { class: "actions" }, submit));
}
