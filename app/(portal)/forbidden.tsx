import { SettingsForbidden } from '@/components/settings/settings-forbidden'

/** The 403 page inside the portal's frame; only Settings refuses by role today. */
export default function Forbidden() {
  return <SettingsForbidden />
}
