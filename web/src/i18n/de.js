// @ts-check
/** de: the catalogue of en.js, translated key by key. */
export default {
};
