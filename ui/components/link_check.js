// link_check: a link with more parameters than Streamlit reads. Streamlit empties such a query
// before the app sees it, so only this tab's address still holds the link. Its parameters are
// counted as Streamlit counts them (one more than its '&'), once per tab, and a count over
// data.limit is reported to the app, which says that the link was not read.

const CHECKED = '__CLASS__'; // set on the window once this tab's link was counted

export default function linkCheck(component) {
  const { data, setStateValue } = component;
  if (window[CHECKED]) return;
  window[CHECKED] = true;
  const query = window.location.search.replace(/^\?/, '');
  const fields = query ? query.split('&').length : 0;
  if (fields > data.limit) setStateValue('fields', fields);
}
