function love.conf(t)
  t.identity = "coax-npc"
  t.window.title = "coax: an NPC card from a model"
  t.window.width, t.window.height = 640, 360
  t.window.vsync = 1
  t.modules.joystick, t.modules.physics, t.modules.audio, t.modules.sound = false, false, false, false
end
