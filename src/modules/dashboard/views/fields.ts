// Labelled form fields with their hint and error tied to the input (aria-describedby), so every
// field is announced with its label, its help and what is wrong with it.
import { html, type SafeHtml } from '../html.ts';

export type FieldErrors = Record<string, string>;

interface FieldBase {
  name: string;
  label: string;
  hint?: string;
  errors?: FieldErrors;
  required?: boolean;
  /** Defaults to name. */
  id?: string;
}

function describe(id: string, hint: string | undefined, error: string | undefined): SafeHtml {
  const ids = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return ids ? html` aria-describedby="${ids}"` : html``;
}

function extras(id: string, hint: string | undefined, error: string | undefined): SafeHtml {
  return html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}${
    error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''
  }`;
}

export function textField(
  f: FieldBase & {
    value?: string | number | null;
    type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'date';
    autocomplete?: string;
    placeholder?: string;
    min?: number;
    max?: number;
    readonly?: boolean;
  },
): SafeHtml {
  const id = f.id ?? f.name;
  const error = f.errors?.[f.name];
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${f.label}${f.required ? '' : html` <span class="optional">(optional)</span>`}</label>
  <input id="${id}" name="${f.name}" type="${f.type ?? 'text'}"${
    f.value !== undefined && f.value !== null ? html` value="${String(f.value)}"` : ''
  }${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
    f.placeholder ? html` placeholder="${f.placeholder}"` : ''
  }${f.min !== undefined ? html` min="${f.min}"` : ''}${f.max !== undefined ? html` max="${f.max}"` : ''}${
    f.required ? html` required` : ''
  }${f.readonly ? html` readonly` : ''}${error ? html` aria-invalid="true"` : ''}${describe(id, f.hint, error)}>
  ${extras(id, f.hint, error)}
</div>`;
}

export function textareaField(
  f: FieldBase & { value?: string | null; rows?: number; autocomplete?: string },
): SafeHtml {
  const id = f.id ?? f.name;
  const error = f.errors?.[f.name];
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${f.label}${f.required ? '' : html` <span class="optional">(optional)</span>`}</label>
  <textarea id="${id}" name="${f.name}" rows="${f.rows ?? 3}"${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
    f.required ? html` required` : ''
  }${error ? html` aria-invalid="true"` : ''}${describe(id, f.hint, error)}>${f.value ?? ''}</textarea>
  ${extras(id, f.hint, error)}
</div>`;
}

export function selectField(
  f: FieldBase & { value?: string | null; options: { value: string; label: string }[] },
): SafeHtml {
  const id = f.id ?? f.name;
  const error = f.errors?.[f.name];
  return html`<div class="field${error ? ' has-error' : ''}">
  <label for="${id}">${f.label}</label>
  <select id="${id}" name="${f.name}"${error ? html` aria-invalid="true"` : ''}${describe(id, f.hint, error)}>
    ${f.options.map((o) => html`<option value="${o.value}"${o.value === (f.value ?? '') ? html` selected` : ''}>${o.label}</option>`)}
  </select>
  ${extras(id, f.hint, error)}
</div>`;
}

export function checkboxField(f: FieldBase & { checked: boolean; value?: string }): SafeHtml {
  const id = f.id ?? f.name;
  const error = f.errors?.[f.name];
  return html`<div class="field checkbox${error ? ' has-error' : ''}">
  <input id="${id}" name="${f.name}" type="checkbox" value="${f.value ?? 'on'}"${f.checked ? html` checked` : ''}${describe(id, f.hint, error)}>
  <label for="${id}">${f.label}</label>
  ${extras(id, f.hint, error)}
</div>`;
}

/** A copy button for the text of the element with id target (app.js does the copying). */
export function copyButton(target: string, label = 'Copy'): SafeHtml {
  return html`<button type="button" class="copy-button" data-copy-target="${target}">${label}</button><span class="copy-status" role="status" aria-live="polite"></span>`;
}
