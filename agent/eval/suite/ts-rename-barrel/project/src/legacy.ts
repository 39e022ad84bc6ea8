export const legacyOptions = { formatDate: "YYYY-MM-DD", locale: "en" };
