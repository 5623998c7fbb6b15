// The screens beside the sessions, in one chunk loaded when the first of them opens: one
// chunk rather than one each keeps the code they share with the page in few files, so the
// first page load fetches few.
export { ContextScreen } from './context/context-screen.tsx'
export { QuotaScreen } from './quota/quota-screen.tsx'
export { SettingsScreen } from './settings/settings-screen.tsx'
export { SignInScreen } from './sign-in/sign-in-screen.tsx'
export { WorkScreen } from './work/work-screen.tsx'
